-- A run that hit a weakness the scope's self-memo names (agent/evolve,
-- HitsWeakness): one more signal, set when the run is recorded.

-- +goose Up
ALTER TABLE run_signals ADD COLUMN weakness INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE run_signals DROP COLUMN weakness;
