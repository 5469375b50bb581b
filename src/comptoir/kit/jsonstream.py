"""JSON read as it streams in, with the values `kit.jsonutil.loads` gives, and the elements of
chosen arrays checked one at a time as they complete (docs/architecture.md "Request bodies").

`Stream(shape)` is fed the body chunk by chunk (`feed`, then `close`). A `Shape` says what is
known of the value's layout: an object's `fields` (each its own Shape), whether its other
keys are `ignored` (their values are then skipped, never built), and for an array an `items`
check, called with each element as soon as it is complete, and its path. The check answers
what to keep in the array, or REFUSED when the element is bad (it records the errors itself).
After a first refusal the request will be refused, so no element of a checked array is kept
any more: each is checked (to count the errors) and dropped, and memory stays flat however
long the array is. A container that is not the kind its Shape expects is kept empty (the
checks refuse it without quoting it) and its content skipped.

Containers with a Shape, and skipped ones, are walked here token by token; every other value
(an element, a field without a Shape) is read whole by the stdlib's C decoder with
`jsonutil.loads`' options once all of it has arrived, so values are exactly `loads`' own:
Decimal for fractions, int within 64 bits else Decimal, NaN and Infinity refused, a lone
surrogate refused, nesting too deep for the decoder (or over MAX_WALK walked levels) refused.
One value read whole must not be longer than `max_value` characters (ValueTooLarge).
The caller feeds at most STEP bytes between two awaits, so a long body never holds the
event loop for more than a few milliseconds.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from comptoir.kit import jsonutil

# Bytes parsed between two awaits: while a 32 MiB refused body streams in, another request
# waits 20 ms at most (tests/security/test_huge_invalid_bodies_memory.py); 2 KiB steps cost
# a 10,000-product catalog PUT 15% more (benchmarks/catalog.py), 16 KiB 3%.
STEP = 16 * 1024
WHOLE = 64 * 1024  # a body this small is read whole once all of it has arrived
REFUSED: Any = object()
_NEVER = re.compile("(?!)")  # matches nothing
Path = tuple[str | int, ...]
Check = Callable[[Any, Path], Any]
_DECODER = json.JSONDecoder(
    parse_float=jsonutil.Decimal, parse_int=jsonutil.parse_int, parse_constant=jsonutil.reject_constant
)
# the C scanner behind raw_decode, without its wrapper (StopIteration when no value starts there)
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_SPACE = " \t\n\r"
_NUMBER = "0123456789.eE+-"
_MARGIN = 32  # an error this far before the end of what arrived is no truncation
_MEMO_TEXT, _MEMO_SIZE = 256, 4096  # elements remembered once refused: their length, how many


class Tally(Protocol):
    """Where the checks count their errors: `total` found so far, `more` the ones not named."""

    more: int

    @property
    def total(self) -> int: ...


class ValueTooLarge(ValueError):
    """One value to build whole (an element of a checked array, or a field with no Shape) is
    longer than the stream's `max_value` characters."""


@dataclass
class Shape:
    fields: dict[str, Shape | None] = field(default_factory=dict)  # None: the value is read whole
    ignored: bool = False  # keys not in `fields` are skipped unbuilt
    items: Check | None = None  # called with each element of the array at this place
    done: Callable[[Any], Any] | None = None  # what replaces the container once complete


@dataclass
class _Frame:
    container: dict[str, Any] | list[Any] | None  # None: a skipped value
    shape: Shape | None
    path: Path
    state: int  # _KEY_OR_END, _KEY, _COLON, _VALUE, _VALUE_OR_END, _COMMA_OR_END
    array: bool
    key: str = ""
    index: int = 0


_KEY_OR_END, _KEY, _COLON, _VALUE, _VALUE_OR_END, _COMMA_OR_END = range(6)


class Stream:
    """One JSON document, fed in chunks; `close()` answers its value.

    Containers with a Shape (and skipped ones) are walked here, token by token; every other
    value is read whole by the stdlib's C decoder (`json.JSONDecoder.raw_decode`, with
    `jsonutil.loads`'s options) as soon as it is complete, so values are `loads`' own."""

    def __init__(
        self, shape: Shape | None = None, *, max_value: int = 2 * 1024 * 1024, tally: Tally | None = None
    ) -> None:
        self.shape = shape
        self.max_value = max_value
        # Once refused, an element's text seen before adds the errors it added then, unchecked
        # (a long array of one bad element repeated costs its parsing only).
        self.tally = tally
        self._memo: dict[str, int] = {}
        self._last, self._added = "", 0  # the last element counted from memory, its errors
        self._run_of = _NEVER  # a run of that element, each followed by a comma
        self._start = 0
        self._memo_of: _Frame | None = None
        self.refused = False  # an `items` check refused an element
        self.has_nul = False  # a NUL escape was seen: the caller checks the strings
        self.size = 0
        self._decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self._text = ""
        self._at = 0  # next character to read in _text
        self._wait = 0  # a value to read whole needs _text this long before it is tried again
        self._stack: list[_Frame] = []
        self._root: list[Any] = []
        self._final = False

    def feed(self, chunk: bytes) -> None:
        """Take `chunk` (the caller gives at most STEP bytes between two awaits)."""
        self.size += len(chunk)
        text = self._decode(chunk)
        if not self.has_nul:
            self.has_nul = _nul_escape_in(self._text[-_NUL_WINDOW:] + text)  # one cut in two too
        if self._at > 4 * STEP and self._at * 2 > len(self._text):  # drop what is read
            self._text, self._wait = self._text[self._at :], max(0, self._wait - self._at)
            self._at = 0
        self._text += text
        if self.size <= WHOLE and not self._stack and not self._root:
            return  # a small body is read whole once it has all arrived (`close`)
        if len(self._text) >= self._wait:
            self._run()

    def close(self) -> Any:
        self._text += self._decode(b"", final=True)
        self._final = True
        self._wait = 0
        if self.size <= WHOLE and not self._stack and not self._root:
            # all of it is here: read whole by the C decoder, then checked as if streamed
            self._space()
            if self._at < len(self._text):
                self._root.append(self._apply(self.shape, self._whole(bounded=False), ()))
        self._run()
        self._space()
        if self._stack or not self._root:
            raise ValueError("Expecting value: the body ends too soon")
        if self._at < len(self._text):
            raise ValueError(f"Extra data at character {self._at}")
        return self._root[0]

    # --- the walk ---------------------------------------------------------------------------

    def _apply(self, shape: Shape | None, value: Any, path: Path) -> Any:
        """`value`, read whole, as a stream of it would have left it with `shape`."""
        if shape is None:
            return value
        if shape.items is not None:
            if type(value) is not list:
                return {} if type(value) is dict else value
            kept: list[Any] = []
            for index, element in enumerate(value):
                outcome = shape.items(element, (*path, index))
                if outcome is REFUSED:
                    self.refused = True
                    kept.clear()
                elif not self.refused:
                    kept.append(element if self.has_nul else outcome)
            value = kept
        else:
            if type(value) is not dict:
                return [] if type(value) is list else value
            if shape.ignored:
                value = {key: item for key, item in value.items() if key in shape.fields}
            for key, child in shape.fields.items():
                if child is not None and key in value:
                    value[key] = self._apply(child, value[key], (*path, key))
        return shape.done(value) if shape.done is not None else value

    def _space(self) -> None:
        text, at = self._text, self._at
        while at < len(text) and text[at] in _SPACE:
            at += 1
        self._at = at

    def _run(self) -> None:
        text = self._text
        while True:
            self._space()
            at = self._at
            if at >= len(text):
                return
            char = text[at]
            if not self._stack:
                if self._root:
                    raise ValueError(f"Extra data at character {at}")
                if not self._value(self.shape, (), self.shape is not None):
                    return
                continue
            frame = self._stack[-1]
            if frame.array and frame.shape is not None and frame.shape.items is not None:
                if not self._items(frame, frame.shape.items):
                    return
                continue
            state = frame.state
            if state in (_VALUE, _VALUE_OR_END):
                if state == _VALUE_OR_END and char == "]":
                    self._end()
                    continue
                if not self._element(frame):
                    return
            elif state == _COMMA_OR_END:
                if char == ",":
                    frame.state = _VALUE if frame.array else _KEY
                    self._at += 1
                elif char == ("]" if frame.array else "}"):
                    self._end()
                else:
                    raise ValueError(f"Expecting ',' delimiter at character {at}")
            elif state in (_KEY, _KEY_OR_END):
                if state == _KEY_OR_END and char == "}":
                    self._end()
                    continue
                if char != '"':
                    raise ValueError(f"Expecting property name enclosed in double quotes at character {at}")
                key = self._whole(str_only=True)
                if key is _INCOMPLETE:
                    return
                frame.key, frame.state = key, _COLON
            else:  # _COLON
                if char != ":":
                    raise ValueError(f"Expecting ':' delimiter at character {at}")
                self._at += 1
                frame.state = _VALUE

    def _items(self, frame: _Frame, check: Check) -> bool:
        """The elements of a checked array, each checked as it completes (the hot loop of a
        long array); True once the array ends, False when the rest has not arrived."""
        text, size, scan, container = self._text, len(self._text), _SCAN, frame.container
        at = self._at
        if frame is not self._memo_of:  # what is remembered holds for one array's check only
            self._memo_of, self._memo, self._last, self._added = frame, {}, "", 0
        while True:
            while at < size and text[at] in _SPACE:
                at += 1
            if at >= size:
                self._at = at
                return False
            char = text[at]
            if frame.state == _COMMA_OR_END:
                if char == ",":
                    frame.state = _VALUE
                    at += 1
                    continue
                if char != "]":
                    raise ValueError(f"Expecting ',' delimiter at character {at}")
                self._at = at
                self._end()
                return True
            if char == "]" and frame.state == _VALUE_OR_END:
                self._at = at
                self._end()
                return True
            self._at = at
            if self._added > 0 and frame.state != _COMMA_OR_END:
                # the same element again and again: counted in a run
                repeated = self._run_of.match(text, at)
                run = (repeated.end() - at) // (len(self._last) + 1) if repeated else 0
                if run:
                    at = repeated.end()  # type: ignore[union-attr]  # run > 0
                    self.tally.more += run * self._added  # type: ignore[union-attr]  # set with _added
                    self._at = at
                    frame.state, frame.index = _VALUE, frame.index + run
                    continue
            if self.refused and self.tally is not None and self._repeat(text, at, size):
                at = self._at
                frame.state = _COMMA_OR_END
                frame.index += 1
                continue
            try:  # the common case at once; anything unusual goes through _whole
                value, end = scan(text, at)
                plain = (
                    end < size
                    and end - at <= self.max_value
                    and type(value) in (dict, list, str)
                    and jsonutil.SURROGATE_ESCAPE.search(text, at, end) is None
                )
            except (StopIteration, json.JSONDecodeError, RecursionError):
                plain = False
            self._start = at
            if plain:
                self._at = at = end
            else:
                value = self._whole()
                if value is _INCOMPLETE:
                    return False
                at = self._at
            frame.state = _COMMA_OR_END
            if self.refused and self.tally is not None and at - self._start <= _MEMO_TEXT:
                before, key = self.tally.total, text[self._start : at]
                check(value, (*frame.path, frame.index))
                # remembered at its second sight: then the check has seen it before, as it will
                # have for every later one (a check that remembers what it saw may count a
                # first sight differently)
                if key in self._memo:
                    self._memo[key] = self.tally.total - before
                elif len(self._memo) < _MEMO_SIZE:
                    self._memo[key] = -1
                frame.index += 1
                continue
            kept = check(value, (*frame.path, frame.index))
            frame.index += 1
            if self.has_nul and kept is not REFUSED and "\\u0000" in text[self._start : at]:
                kept = value  # as it came, for the caller's check of NUL characters
            if kept is REFUSED:
                if not self.refused:
                    self.refused = True
                    if type(container) is list:
                        container.clear()
            elif not self.refused and type(container) is list:
                container.append(kept)

    def _repeat(self, text: str, at: int, size: int) -> bool:
        """Whether the element at `at` is one already checked (its errors counted again)."""
        last = self._last
        if last and text.startswith(last, at) and at + len(last) < size and text[at + len(last)] in ",] \t\n\r":
            end = at + len(last)
        else:
            try:
                _, end = _SCAN(text, at)
            except (StopIteration, json.JSONDecodeError, RecursionError):
                return False
            if end >= size or end - at > _MEMO_TEXT:
                return False
            last = text[at:end]
        added = self._memo.get(last, -1)
        if added < 0:
            return False
        if last != self._last:
            self._run_of = re.compile("(?:" + re.escape(last + ",") + ")+")
        self._last, self._added = last, added
        self.tally.more += added  # type: ignore[union-attr]  # checked by the caller
        self._at = end
        return True

    def _element(self, frame: _Frame) -> bool:
        """The value at the current place of `frame`; False when it has not all arrived."""
        if frame.array:  # not a checked one (`_items`)
            skipped = frame.container is None
            return self._value(None, (*frame.path, frame.index), skipped, frame, skip=skipped)
        shape = frame.shape
        child = shape.fields.get(frame.key) if shape is not None else None
        skip = frame.container is None or (shape is not None and shape.ignored and frame.key not in shape.fields)
        return self._value(child, (*frame.path, frame.key), skip or child is not None, frame, skip=skip)

    def _value(
        self, shape: Shape | None, path: Path, walk: bool, parent: _Frame | None = None, *, skip: bool = False
    ) -> bool:
        char = self._text[self._at]
        if walk and char in "{[":
            if len(self._stack) >= jsonutil.MAX_WALK:
                raise ValueError("nested too deeply")
            self._at += 1
            array = char == "["
            if parent is not None:
                parent.state = _COMMA_OR_END
                if parent.array:
                    parent.index += 1
            container: dict[str, Any] | list[Any] | None = None
            if skip or shape is None:
                shape = None
            elif (shape.items is not None) != array:
                # Not the kind the Shape expects: refused by the checks that follow, which see
                # an empty one (their messages do not quote it); its content is skipped unbuilt.
                self._put(parent, [] if array else {})
                shape = None
            else:
                container = [] if array else {}
                self._put(parent, container)
            self._stack.append(_Frame(container, shape, path, _VALUE_OR_END if array else _KEY_OR_END, array))
            return True
        value = self._whole()
        if value is _INCOMPLETE:
            return False
        if parent is not None:
            parent.state = _COMMA_OR_END
            if parent.array:
                parent.index += 1
        if not skip:
            self._put(parent, value)
        return True

    def _put(self, parent: _Frame | None, value: Any) -> None:
        if parent is None:
            self._root.append(value)
        elif type(parent.container) is dict:
            parent.container[parent.key] = value
        elif type(parent.container) is list:
            parent.container.append(value)

    def _end(self) -> None:
        self._at += 1
        frame = self._stack.pop()
        if frame.shape is None or frame.shape.done is None or frame.container is None:
            return
        value = frame.shape.done(frame.container)
        parent = self._stack[-1] if self._stack else None
        if parent is None:
            self._root[0] = value
        elif type(parent.container) is dict:
            parent.container[parent.key] = value
        elif type(parent.container) is list:
            parent.container[-1] = value

    def _whole(self, *, str_only: bool = False, bounded: bool = True) -> Any:
        """The value starting at `_at`, read whole, or _INCOMPLETE until it has all arrived."""
        text, at = self._text, self._at
        try:
            value, end = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            if self._final or (exc.pos < len(text) - _MARGIN and not exc.msg.startswith("Unterminated string")):
                raise ValueError(f"{exc.msg} at character {exc.pos}") from None
            return self._later(at)
        except RecursionError:
            raise ValueError("nested too deeply") from None
        if not self._final and type(value) not in (dict, list, str) and not text[end:].lstrip(_NUMBER):
            return self._later(at)  # a number (`1.`, `1e`) may go on in the next chunk
        if bounded and end - at > self.max_value:
            raise ValueTooLarge(f"A value of the body is over {self.max_value} characters")
        if jsonutil.SURROGATE_ESCAPE.search(text, at, end) is not None:
            jsonutil.check_strings(value)
        if str_only and type(value) is not str:
            raise ValueError(f"Expecting property name enclosed in double quotes at character {at}")
        self._at = end
        return value

    def _later(self, at: int) -> Any:
        waiting = len(self._text) - at
        if waiting > self.max_value:
            raise ValueTooLarge(f"A value of the body is over {self.max_value} characters")
        self._wait = at + max(2 * waiting, STEP)  # tried again once twice as long: linear, not quadratic
        return _INCOMPLETE


_INCOMPLETE: Any = object()


_NUL_WINDOW = 64  # characters of the text before a chunk, for an escape or a run of \\ cut in two


def _nul_escape_in(text: str) -> bool:
    """Whether `text` holds a `\\u0000` escape (a NUL), not the text `\\\\u0000` (a backslash,
    then `u0000`): an escape's backslash follows an even run of backslashes. A run that reaches
    the start of `text` may be longer than it shows, and counts as an escape (the strings are
    checked then)."""
    at = text.find("\\u0000")
    while at >= 0:
        run = at
        while run > 0 and text[run - 1] == "\\":
            run -= 1
        if run == 0 or (at - run) % 2 == 0:
            return True
        at = text.find("\\u0000", at + 1)
    return False
