package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse/internal/sanctions"
	"github.com/disburse/disburse/payouts"
)

// Sanctions screening: a payee whose name (raised by their date of birth and country, from the
// tax form on file) matches an entry of the sanctions list loaded last, scoring at or over
// Config.SanctionsThreshold, is held before any payout to them reaches a rail (planPayout), until
// an operator releases it with who and why (ReviewTransfer). A release holds for that entry and
// that load of the list: a newer load asks again. With no list loaded nothing is screened, and
// no list is read for a minute (sanctionsRecheck).

// SanctionsLoad is what loading a list did: the load, whether it was the list already loaded
// (then nothing was screened again), and how many payees were screened and matched.
type SanctionsLoad struct {
	ListID    int64
	Version   string
	Entries   int
	Unchanged bool
	Payees    int
	Held      int
}

// sanctionsIndex is the index of the list loaded last, built once per load and shared by every
// screening of this process; another process's load is noticed by its id. screened keeps the
// matches of the subjects screened against it lately: a screening compares the subject with
// every token of the list, which is worth doing once per payee rather than once per payout.
// noListSince is when the database last said no list is loaded (zero: not said, or a list is):
// until sanctionsRecheck later a payout reads no list, so a list loaded by another process is
// screened against from at most that much later.
type sanctionsIndex struct {
	mu          sync.Mutex
	listID      int64
	index       *sanctions.Index
	screened    map[sanctions.Subject][]sanctions.Match
	noListSince time.Time
}

// screenedKept bounds sanctionsIndex.screened; past it the kept matches are dropped.
const screenedKept = 10_000

// sanctionsRecheck is how long that no list is loaded is believed without asking the database.
const sanctionsRecheck = time.Minute

// LoadSanctions stores the list l read from source as the one screened against, unless it is
// the one loaded already, and screens every payee of every app against it.
func (s *Service) LoadSanctions(ctx context.Context, l *sanctions.List, source string) (*SanctionsLoad, error) {
	rec := &SanctionsListRecord{Version: l.Version, Source: source, Entries: l.Entries, EntryCount: len(l.Entries), Loaded: s.now()}
	unchanged := false
	err := s.store.InTx(ctx, func(q Queries) error {
		cur, err := q.CurrentSanctionsList(ctx)
		switch {
		case err == nil && cur.Version == l.Version:
			unchanged, rec.ID = true, cur.ID
			return nil
		case err != nil && !errors.Is(err, ErrNoRecord):
			return err
		}
		return q.SaveSanctionsList(ctx, rec)
	})
	if err != nil {
		return nil, err
	}
	load := &SanctionsLoad{ListID: rec.ID, Version: rec.Version, Entries: rec.EntryCount, Unchanged: unchanged}
	if unchanged {
		return load, nil
	}
	index := s.cacheSanctionsIndex(rec.ID, sanctions.NewIndex(l))
	users, err := s.store.ScreeningPayees(ctx)
	if err != nil {
		return nil, err
	}
	var hits []SanctionsHitRecord
	for i := range users {
		subject, err := s.screeningSubject(ctx, s.store, &users[i])
		if err != nil {
			return nil, err
		}
		found := hitsOf(&users[i], rec.ID, index.Screen(subject, s.cfg.SanctionsThreshold), s.now())
		if len(found) > 0 {
			load.Held++
		}
		hits = append(hits, found...)
	}
	load.Payees = len(users)
	if err := s.store.InTx(ctx, func(q Queries) error { return q.SaveSanctionsHits(ctx, hits) }); err != nil {
		return nil, err
	}
	s.log.Info("sanctions list loaded", "version", rec.Version, "entries", rec.EntryCount,
		"source", source, "payees", load.Payees, "held", load.Held)
	return load, nil
}

// screenPayee is what holds user's payouts: their hits against the list loaded last that no
// operator released, the stored ones and any new ones (not stored yet). None when no list is
// loaded.
func (s *Service) screenPayee(ctx context.Context, q Reads, user *UserRecord) ([]SanctionsHitRecord, error) {
	list, index, err := s.currentSanctions(ctx, q)
	if err != nil || list == nil {
		return nil, err
	}
	subject, err := s.screeningSubject(ctx, q, user)
	if err != nil {
		return nil, err
	}
	found := hitsOf(user, list.ID, s.screenSubject(list.ID, index, subject), s.now())
	if len(found) == 0 {
		return nil, nil
	}
	stored, err := q.SanctionsHits(ctx, user.AppID, user.ID, list.ID)
	if err != nil {
		return nil, err
	}
	return unreleased(found, stored), nil
}

// hitsOf records the matches of user against the list of id listID.
func hitsOf(user *UserRecord, listID int64, matches []sanctions.Match, now time.Time) []SanctionsHitRecord {
	hits := make([]SanctionsHitRecord, 0, len(matches))
	for _, m := range matches {
		hits = append(hits, SanctionsHitRecord{AppID: user.AppID, UserID: user.ID, ListID: listID, EntryUID: m.Entry.UID,
			List: m.Entry.List, EntryName: m.Entry.Name, MatchedName: m.Name, Programs: m.Entry.Programs, Score: m.Score, Created: now})
	}
	return hits
}

// unreleased is the hits of found whose entry no stored hit of the same list released.
func unreleased(found, stored []SanctionsHitRecord) []SanctionsHitRecord {
	released := map[string]bool{}
	for _, h := range stored {
		if h.ReleasedAt != nil {
			released[h.EntryUID] = true
		}
	}
	var out []SanctionsHitRecord
	for _, h := range found {
		if !released[h.EntryUID] {
			out = append(out, h)
		}
	}
	return out
}

// releaseSanctionsHits records, when a reviewer releases a transfer, the release of every hit
// that holds its payee, with who and why; both are required when there is one.
func (s *Service) releaseSanctionsHits(ctx context.Context, q Queries, t *TransferRecord, req payouts.ReviewTransferRequest) error {
	if t.UserID == nil {
		return nil
	}
	user, err := s.getUser(ctx, q, t.AppID, *t.UserID)
	if err != nil {
		return err
	}
	hits, err := s.screenPayee(ctx, q, user)
	if err != nil || len(hits) == 0 {
		return err
	}
	p := payouts.Problems{}
	const why = "is required to release a payee held by sanctions screening"
	if strings.TrimSpace(req.Reviewer) == "" {
		p.Add("reviewer", why)
	}
	if strings.TrimSpace(req.Reason) == "" {
		p.Add("reason", why)
	}
	if err := p.Err(); err != nil {
		return err
	}
	if err := q.SaveSanctionsHits(ctx, hits); err != nil {
		return err
	}
	at := s.now()
	for i := range hits {
		h := &hits[i]
		h.ReleasedBy, h.ReleaseReason, h.ReleasedAt = strings.TrimSpace(req.Reviewer), strings.TrimSpace(req.Reason), &at
		if err := q.ReleaseSanctionsHit(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

// GetScreening is the user's hits against the list loaded last, with their releases.
func (s *Service) GetScreening(ctx context.Context, appID, userID string) (*payouts.Screening, error) {
	user, err := s.getUser(ctx, s.store, appID, userID)
	if err != nil {
		return nil, err
	}
	out := &payouts.Screening{Hits: []payouts.ScreeningHit{}}
	list, err := s.store.CurrentSanctionsList(ctx)
	if errors.Is(err, ErrNoRecord) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	loaded := payouts.NewTime(list.Loaded)
	out.ListVersion, out.ListLoaded = list.Version, &loaded
	hits, err := s.store.SanctionsHits(ctx, appID, user.ID, list.ID)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out.Hits = append(out.Hits, h.out())
	}
	return out, nil
}

func (h SanctionsHitRecord) out() payouts.ScreeningHit {
	o := payouts.ScreeningHit{EntryUID: h.EntryUID, List: h.List, EntryName: h.EntryName, MatchedName: h.MatchedName,
		Programs: h.Programs, Score: h.Score, Created: payouts.NewTime(h.Created),
		Released: h.ReleasedAt != nil, ReleasedBy: h.ReleasedBy, ReleaseReason: h.ReleaseReason}
	if h.ReleasedAt != nil {
		at := payouts.NewTime(*h.ReleasedAt)
		o.ReleasedAt = &at
	}
	return o
}

// currentSanctions is the list loaded last and its index, built from its stored entries when
// this process has not built it yet; nil when no list is loaded. A load committed between
// reading the list and its entries drops the entries read for: the newer list is read then.
func (s *Service) currentSanctions(ctx context.Context, q Reads) (*SanctionsListRecord, *sanctions.Index, error) {
	s.sanctions.mu.Lock()
	since := s.sanctions.noListSince
	s.sanctions.mu.Unlock()
	if !since.IsZero() && s.now().Sub(since) < sanctionsRecheck {
		return nil, nil, nil
	}
	for attempt := 1; ; attempt++ {
		list, err := q.CurrentSanctionsList(ctx)
		if errors.Is(err, ErrNoRecord) {
			s.sanctions.mu.Lock()
			if s.sanctions.index == nil {
				s.sanctions.noListSince = s.now()
			}
			s.sanctions.mu.Unlock()
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		s.sanctions.mu.Lock()
		index, id := s.sanctions.index, s.sanctions.listID
		s.sanctions.mu.Unlock()
		if index != nil && id == list.ID {
			return list, index, nil
		}
		entries, err := q.SanctionsEntries(ctx, list.ID)
		if errors.Is(err, ErrNoRecord) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return list, s.cacheSanctionsIndex(list.ID, sanctions.NewIndex(&sanctions.List{Version: list.Version, Entries: entries})), nil
	}
}

// cacheSanctionsIndex keeps index as the one of list listID, unless a newer list's is kept.
func (s *Service) cacheSanctionsIndex(listID int64, index *sanctions.Index) *sanctions.Index {
	s.sanctions.mu.Lock()
	defer s.sanctions.mu.Unlock()
	if listID > s.sanctions.listID || s.sanctions.index == nil {
		s.sanctions.listID, s.sanctions.index = listID, index
		s.sanctions.screened = map[sanctions.Subject][]sanctions.Match{}
	}
	s.sanctions.noListSince = time.Time{}
	return index
}

// screenSubject is index.Screen of subject at the service's threshold, kept for the next
// screening of the same subject against the same list.
func (s *Service) screenSubject(listID int64, index *sanctions.Index, subject sanctions.Subject) []sanctions.Match {
	c := &s.sanctions
	c.mu.Lock()
	matches, ok := c.screened[subject]
	kept := ok && c.listID == listID
	c.mu.Unlock()
	if kept {
		return matches
	}
	matches = index.Screen(subject, s.cfg.SanctionsThreshold)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listID == listID {
		if len(c.screened) >= screenedKept {
			clear(c.screened)
		}
		c.screened[subject] = matches
	}
	return matches
}

// screeningSubject is who user is for screening: their name, with the date of birth and
// country of the tax form in force, when there is one.
func (s *Service) screeningSubject(ctx context.Context, q Reads, user *UserRecord) (sanctions.Subject, error) {
	subject := sanctions.Subject{Name: user.Name()}
	form, err := q.LatestTaxForm(ctx, user.AppID, user.ID)
	if errors.Is(err, ErrNoRecord) {
		return subject, nil
	}
	if err != nil {
		return subject, err
	}
	plain, err := s.open(form.Sealed, aadOf(SealedTaxForm, user.ID))
	if err != nil {
		return subject, err
	}
	var req payouts.ComplianceRequest
	if err := json.Unmarshal(plain, &req); err != nil {
		return subject, err
	}
	switch {
	case req.W9 != nil:
		subject.BirthDate, subject.Country = req.W9.DateOfBirth, req.W9.Address.Country
	case req.W8BEN != nil:
		subject.BirthDate, subject.Country = req.W8BEN.DateOfBirth, req.W8BEN.CitizenshipCountry
	}
	return subject, nil
}

// SanctionsLoaded reports whether a list is loaded, for the operator's pages.
func (s *Service) SanctionsLoaded(ctx context.Context) (bool, error) {
	list, _, err := s.currentSanctions(ctx, s.store)
	return list != nil, err
}
