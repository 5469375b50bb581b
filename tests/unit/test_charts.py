"""docs/back-office.md "Connections, logs and charts": the SVG charts, laid out on the server."""

from __future__ import annotations

from decimal import Decimal

import pytest

from comptoir.web.charts import Series, chart, nice_top, render


def test_the_value_axis_ends_at_1_2_or_5_times_a_power_of_ten() -> None:
    assert [nice_top(v) for v in (0, 1, 3, 7, 10, 11, 180)] == [1, 1, 5, 10, 10, 20, 200]
    assert nice_top(Decimal("0.3")) == Decimal("0.5")


def test_bars_are_as_tall_as_their_values_on_the_axis() -> None:
    drawn = chart("c", "Orders", "4 orders.", ["1 Nov", "2 Nov"], [Series("Orders", (3, 1))])
    # plot 428 x 166 from (44, 10); axis top 5; slot 214, bar 70% of it
    assert [(b.x, b.y, b.width, b.height, b.tip) for b in drawn.bars] == [
        (76.1, 76.4, 149.8, 99.6, "1 Nov, Orders: 3"),
        (290.1, 142.8, 149.8, 33.2, "2 Nov, Orders: 1"),
    ]
    assert [(t.at, t.text) for t in drawn.y_ticks] == [(176.0, "0"), (10.0, "5")]  # no 2.5 orders
    assert [(t.at, t.text) for t in drawn.x_ticks] == [(151.0, "1 Nov"), (365.0, "2 Nov")]


def test_stacked_bars_pile_up_and_a_zero_draws_nothing() -> None:
    drawn = chart(
        "d",
        "Deliveries",
        "",
        ["1 Nov", "2 Nov"],
        [Series("Delivered", (6, 0), "ok"), Series("Failed", (2, 0), "bad")],
        kind="stacked",
    )
    assert [(b.y, b.height, b.tone) for b in drawn.bars] == [(76.4, 99.6, "ok"), (43.2, 33.2, "bad")]
    assert [(t.at, t.text) for t in drawn.y_ticks] == [(176.0, "0"), (93.0, "5"), (10.0, "10")]


def test_a_line_goes_through_the_middle_of_each_day() -> None:
    drawn = chart(
        "r",
        "Revenue",
        "",
        ["1 Nov", "2 Nov", "3 Nov"],
        [Series("Revenue", (Decimal("20.00"), Decimal("0"), Decimal("12.50")))],
        kind="line",
        fmt=lambda v: f"{v:.2f}",
    )
    assert [line.points for line in drawn.lines] == ["115.3,10.0 258.0,176.0 400.7,72.2"]  # axis top 20
    assert [t.text for t in drawn.y_ticks] == ["0.00", "10.00", "20.00"]
    assert drawn.shown == (("1 Nov", "20.00"), ("2 Nov", "0.00"), ("3 Nov", "12.50"))


def test_one_label_in_every_few_under_the_axis() -> None:
    labels = [f"{day} Nov" for day in range(1, 31)]
    drawn = chart("m", "Orders", "", labels, [Series("Orders", tuple(range(30)))])
    assert [t.text for t in drawn.x_ticks] == ["1 Nov", "6 Nov", "11 Nov", "16 Nov", "21 Nov", "26 Nov"]
    assert len(drawn.shown) == 30


def test_values_and_labels_must_match() -> None:
    with pytest.raises(ValueError, match="Orders: 1 values for 2 labels"):
        chart("x", "t", "", ["a", "b"], [Series("Orders", (1,))])


def test_the_svg_is_an_image_named_by_its_title_with_every_figure_in_a_table() -> None:
    svg = str(render(chart("c", "Orders per day", "4 orders.", ["1 Nov", "2 Nov"], [Series("Orders", (3, 1))])))
    assert '<svg viewBox="0 0 480 200" role="img" aria-labelledby="c-title c-desc" focusable="false">' in svg
    assert '<title id="c-title">Orders per day</title>\n<desc id="c-desc">4 orders.</desc>' in svg
    assert (
        '<rect class="chart-a" x="76.1" y="76.4" width="149.8" height="99.6"><title>1 Nov, Orders: 3</title></rect>'
    ) in svg
    assert '<text x="38" y="10.0" text-anchor="end" dominant-baseline="middle">5</text>' in svg
    assert '<text x="151.0" y="194" text-anchor="middle">1 Nov</text>' in svg
    assert '<tr><th scope="row">2 Nov</th><td>1</td></tr>' in svg
    assert '<figcaption aria-hidden="true">Orders per day</figcaption>' in svg  # one series: no legend


def test_text_in_a_chart_is_escaped() -> None:
    svg = str(render(chart("c", "<script>x</script>", "a & b", ["<b>"], [Series("<i>", (1,))])))
    assert "<script>" not in svg
    assert '<title id="c-title">&lt;script&gt;x&lt;/script&gt;</title>' in svg
    assert '<desc id="c-desc">a &amp; b</desc>' in svg
    assert "<title>&lt;b&gt;, &lt;i&gt;: 1</title>" in svg
    assert '<th scope="col">&lt;i&gt;</th>' in svg


def test_two_series_have_a_legend_in_their_colours() -> None:
    drawn = chart("d", "Deliveries", "", ["1 Nov"], [Series("Delivered", (1,), "ok"), Series("Failed", (0,), "bad")])
    assert (
        '<figcaption aria-hidden="true">Deliveries <span class="chart-legend">'
        '<span><span class="chart-key chart-ok"></span>Delivered</span>'
        '<span><span class="chart-key chart-bad"></span>Failed</span></span></figcaption>'
    ) in render(drawn)


def test_the_value_axis_may_write_its_marks_its_own_way() -> None:
    drawn = chart(
        "r", "Revenue", "", ["1 Nov"], [Series("Revenue", (Decimal("1234.50"),))],
        fmt=lambda v: f"{v:.2f}", axis_fmt=lambda v: f"{Decimal(v).normalize():f}",
    )  # fmt: skip
    assert [t.text for t in drawn.y_ticks] == ["0", "1000", "2000"]
    assert drawn.shown == (("1 Nov", "1234.50"),)
