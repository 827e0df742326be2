-- Asks outlive the process that parked them. An item's execution says
-- where its tool call is: NULL while the call waits for its answer or for
-- a turn to act on the answer; 'started' once an approved call began to
-- run; 'finished' once the call has its result in the session (it ran, was
-- refused, was answered, or the ask was withdrawn). A turn resuming after a
-- stop or a crash acts on the NULL ones and never runs a 'started' one
-- again.
ALTER TABLE inbox_items ADD COLUMN execution TEXT
  CHECK (execution IS NULL OR execution IN ('started', 'finished'));

-- What was answered before this column existed is settled.
UPDATE inbox_items SET execution = 'finished' WHERE state = 'resolved';

CREATE INDEX inbox_items_unsettled ON inbox_items (session_id) WHERE execution IS NULL;
