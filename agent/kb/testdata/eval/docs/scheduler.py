"""Scheduler loop: fires scheduled and recurring messages.

Exactly one scheduler is active per region. It holds PostgreSQL advisory
lock 7421; the other replicas block on the lock and take over within one
poll interval if the active one dies.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from croniter import croniter

log = logging.getLogger("scheduler")

POLL_INTERVAL_SECONDS = 5
BATCH_SIZE = 200
ADVISORY_LOCK_KEY = 7421
# A job that is more than this late is skipped instead of fired, and the
# skip is recorded, so a scheduler that was down for a day does not flood
# conversations with a day of reminders at once.
MAX_LATENESS = timedelta(hours=6)


@dataclass
class Job:
    id: int
    workspace_id: str
    conversation_id: str
    text: str
    cron: str | None          # None for a one-off job
    tz_name: str              # IANA name, e.g. "Europe/Berlin"
    next_run_at: datetime     # always UTC
    failures: int = 0


CLAIM_SQL = """
SELECT id, workspace_id, conversation_id, text, cron, tz_name, next_run_at, failures
FROM scheduled_jobs
WHERE next_run_at <= now() AND paused = false
ORDER BY next_run_at
LIMIT %(limit)s
FOR UPDATE SKIP LOCKED
"""


def compute_next_run_at(job: Job, after: datetime) -> datetime | None:
    """Return the next time the job fires after `after`, in UTC.

    The cron expression is evaluated in the job's own time zone, not in UTC,
    so "every weekday at 09:00" stays at 09:00 local time across daylight
    saving changes. This is the fix for the skipped jobs of 9 March 2026
    (#2231): we used to store a fixed UTC offset with the job.
    """
    if job.cron is None:
        return None
    tz = ZoneInfo(job.tz_name)
    local_after = after.astimezone(tz)
    nxt = croniter(job.cron, local_after).get_next(datetime)
    return nxt.astimezone(timezone.utc)


def backoff_for(failures: int) -> timedelta:
    """Delay before retrying a job whose publish failed: 30s, 1m, 2m, ... capped at 15 minutes."""
    return min(timedelta(seconds=30 * (2 ** failures)), timedelta(minutes=15))


class Scheduler:
    def __init__(self, db, bus, clock=time.time):
        self.db = db
        self.bus = bus
        self.clock = clock

    def run_forever(self) -> None:
        with self.db.advisory_lock(ADVISORY_LOCK_KEY):
            log.info("scheduler active, lock %d held", ADVISORY_LOCK_KEY)
            while True:
                fired = self.tick()
                if fired < BATCH_SIZE:
                    time.sleep(POLL_INTERVAL_SECONDS)

    def tick(self) -> int:
        """Claim due jobs, publish them, and reschedule. Returns how many fired."""
        now = datetime.now(timezone.utc)
        fired = 0
        with self.db.transaction() as tx:
            rows = tx.fetch(CLAIM_SQL, {"limit": BATCH_SIZE})
            for row in rows:
                job = Job(*row)
                if now - job.next_run_at > MAX_LATENESS:
                    log.warning("job %d is %s late; skipping", job.id, now - job.next_run_at)
                    tx.execute("INSERT INTO job_skips (job_id, due_at) VALUES (%s, %s)", (job.id, job.next_run_at))
                    self._reschedule(tx, job, now)
                    continue
                try:
                    self.bus.publish(
                        f"scheduled.{job.workspace_id}",
                        {"job_id": job.id, "conversation_id": job.conversation_id, "text": job.text},
                    )
                except Exception:
                    job.failures += 1
                    retry_at = now + backoff_for(job.failures)
                    log.exception("publish failed for job %d; retry at %s", job.id, retry_at)
                    tx.execute(
                        "UPDATE scheduled_jobs SET failures = %s, next_run_at = %s WHERE id = %s",
                        (job.failures, retry_at, job.id),
                    )
                    continue
                fired += 1
                self._reschedule(tx, job, now)
        return fired

    def _reschedule(self, tx, job: Job, now: datetime) -> None:
        nxt = compute_next_run_at(job, now)
        if nxt is None:
            tx.execute("DELETE FROM scheduled_jobs WHERE id = %s", (job.id,))
            return
        tx.execute(
            "UPDATE scheduled_jobs SET next_run_at = %s, failures = 0 WHERE id = %s",
            (nxt, job.id),
        )
