-- A payout reaches its rail outside any database transaction (internal/service/submission.go).
-- rail_state is how far a pending payout got: 'submitting' until the rail acknowledged it, then
-- 'submitted'. lease_until is when a worker that claimed it for a rail call is presumed dead and
-- another may take it over; attempts counts the claims, so a worker knows it still holds its own.
ALTER TABLE transfers ADD COLUMN rail_state TEXT NOT NULL DEFAULT '';
ALTER TABLE transfers ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
UPDATE transfers SET rail_state = CASE WHEN external_id = '' THEN 'submitting' ELSE 'submitted' END
    WHERE type = 'payout' AND status = 'pending';
