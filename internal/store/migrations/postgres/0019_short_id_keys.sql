-- The short-id indexes are keyed by a short id's ShortIDKey (internal/service/id.go): its last six
-- digits in reverse order, then its first two. The service writes a count of the app's transfers
-- into the last six digits of each new transfer's id, lowest digit first, so that short ids made one
-- after another differ where an operator reads them; keyed so, they count up, and a new transfer's
-- entry lands on the page the last one went to instead of on a random page each. The other tables'
-- short ids are random, as before; they are keyed the same way so that one lookup serves all four.
-- The id lookup writes the expression exactly so.
DROP INDEX users_short_id;
DROP INDEX payout_links_short_id;
DROP INDEX transfers_short_id;
DROP INDEX flows_short_id;
CREATE INDEX users_short_id ON users (app_id, (substr(id, 36, 1) || substr(id, 35, 1) || substr(id, 34, 1) || substr(id, 33, 1) || substr(id, 32, 1) || substr(id, 31, 1) || substr(id, 29, 2)));
CREATE INDEX payout_links_short_id ON payout_links (app_id, (substr(id, 36, 1) || substr(id, 35, 1) || substr(id, 34, 1) || substr(id, 33, 1) || substr(id, 32, 1) || substr(id, 31, 1) || substr(id, 29, 2)));
CREATE INDEX transfers_short_id ON transfers (app_id, (substr(id, 36, 1) || substr(id, 35, 1) || substr(id, 34, 1) || substr(id, 33, 1) || substr(id, 32, 1) || substr(id, 31, 1) || substr(id, 29, 2)));
CREATE INDEX flows_short_id ON flows (app_id, (substr(id, 36, 1) || substr(id, 35, 1) || substr(id, 34, 1) || substr(id, 33, 1) || substr(id, 32, 1) || substr(id, 31, 1) || substr(id, 29, 2)));
