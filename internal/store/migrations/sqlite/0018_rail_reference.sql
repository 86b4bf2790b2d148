-- A payout's id in the provider's own reports when it is not the rail id the worker asks about:
-- PayPal's transaction id of a payout item (its batch id is the rail id), which is all PayPal's
-- Transaction Search lists a payout by. Empty until the rail reports it, and for other rails.
ALTER TABLE transfers ADD COLUMN rail_reference TEXT NOT NULL DEFAULT '';
