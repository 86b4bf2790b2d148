-- Lists name an object by its short id, the last 8 hexadecimal digits of its id (characters 29
-- to 36): the first 8 of a time-ordered id are the same for everything made in the same minute.
-- These find an object of an app by its short id; the id lookup writes the expression exactly so.
CREATE INDEX users_short_id ON users (app_id, substr(id, 29));
CREATE INDEX payout_links_short_id ON payout_links (app_id, substr(id, 29));
CREATE INDEX transfers_short_id ON transfers (app_id, substr(id, 29));
CREATE INDEX flows_short_id ON flows (app_id, substr(id, 29));
