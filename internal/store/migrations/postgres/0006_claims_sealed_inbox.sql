-- A claim records when it happened and the verified contact the payee proved, for the link's
-- timeline.
ALTER TABLE payout_links ADD COLUMN claimed_at BIGINT;
ALTER TABLE payout_links ADD COLUMN claimed_via TEXT NOT NULL DEFAULT '';

-- Sandbox message bodies are sealed from now on; the ones kept in clear (one-time codes, claim
-- links) are dropped rather than left readable.
DELETE FROM sandbox_messages;
