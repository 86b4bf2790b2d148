-- The dashboard's search asks the service for a followed user's flows and for the payout links
-- of an amount (GET /v2/flows?user_id=, GET /v2/payout-links?amount=): these read just those
-- rows, newest first, instead of the app's newest hundred filtered by the caller.
CREATE INDEX flows_user ON flows (app_id, user_id, seq);
CREATE INDEX payout_links_amount ON payout_links (app_id, amount, seq);
