-- Each operator's time zone (an IANA name, such as America/New_York): the days every page,
-- export and filter reads and shows are theirs. Empty until they set it; their browser's zone,
-- or UTC, stands in until then.
ALTER TABLE operators ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
