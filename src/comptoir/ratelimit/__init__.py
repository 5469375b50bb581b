"""Rate limits of spec 8.2 per connection, in fixed windows aligned on the round minute,
hour and UTC day.

docs/api/conventions.md "Rate limits": heavy queries share one 10/min bucket per connection and count
toward the general limits too; image requests have their own limits and are excluded from
the general ones; a replay counts by the events it queues again (`RateLimiter.charge_replay`);
a refused (429) request counts toward no window. Counters live in Redis when
`COMPTOIR_REDIS_URL` is set (shared by every process), in the process otherwise.
"""

from comptoir.ratelimit.limiter import GENERAL, HEAVY, IMAGE, Decision, RateLimiter, Window

__all__ = ["GENERAL", "HEAVY", "IMAGE", "Decision", "RateLimiter", "Window"]
