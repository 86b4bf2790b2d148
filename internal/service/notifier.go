package service

import "context"

// Inbox returns the newest messages the sandbox notifier (package sandbox) kept, of one app or of all when appID is
// empty.
func (s *Service) Inbox(ctx context.Context, appID string, limit int) ([]MessageRecord, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	return s.store.ListMessages(ctx, appID, limit)
}
