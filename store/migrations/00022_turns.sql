-- How turns ended (bot.TurnHour, #29 overview): a count per hour (unix
-- milliseconds on the hour), outcome and latency (bot.LatencyBucket, in
-- milliseconds; 0 unknown). A turn adds one in the transaction that marks
-- its messages done. Accounting, like costs: nothing deletes the rows,
-- and they do not grow with the traffic, only with the hours.

-- +goose Up
CREATE TABLE turn_hours (
    hour       INTEGER NOT NULL,
    outcome    TEXT    NOT NULL,
    latency_ms INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (hour, outcome, latency_ms)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE turn_hours;
