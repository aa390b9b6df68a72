-- Handled events keep their key (dedupe) but not what people wrote: the
-- payload was only needed to finish the event after a crash. MarkDone now
-- drops it; this drops what earlier versions kept.

-- +goose Up
UPDATE inbox SET payload = NULL WHERE status <> 'accepted';

-- +goose Down
SELECT 1;
