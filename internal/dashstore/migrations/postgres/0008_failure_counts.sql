-- The overview counts the payouts that failed in its window without a transfer: bulk rows
-- refused, by the time their job last ran, and approved payouts the service refused, by the
-- time they were decided. These indexes bound both counts by time.
CREATE INDEX bulk_jobs_app_updated ON bulk_jobs (app_id, updated_at);
CREATE INDEX approvals_decided ON approvals (status, decided_at);
