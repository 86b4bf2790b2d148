package service

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/disburse/disburse/payouts"
)

// reconcileSlack widens the day on both sides when the two lists are read, so that a payout we
// made just before midnight and the provider stamped just after still finds its item. Only a
// pair or an unmatched row created within the day itself is reported.
const reconcileSlack = time.Hour

// Reconcile matches our payouts on a rail for a day (UTC) against the items the provider lists
// for it, and lists every difference: ours only, theirs only, amount differs, status differs. An
// item is matched by our transfer id in the provider's metadata; an item without one (PayPal's
// Transaction Search names a payout by its transaction id alone) by the provider's id, against
// each payout's rail id and the reference its outcome reported (RailReference), so the rail needs
// no store. An item matched to a payout on another platform belongs to that platform's
// reconciliation: one PayPal account pays PayPal and Venmo payees and lists both alike. A payout
// of ours that failed and that the provider does not list moved no money anywhere: it is matched,
// not ours only. With
// appID it covers that app's payouts and the items that are theirs or name that app; with appID
// empty every app's payouts and every item, those made outside disburse too (the operator's
// command).
func (s *Service) Reconcile(ctx context.Context, appID string, req payouts.ReconcileRequest) (*payouts.Reconciliation, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	lister, ok := s.cfg.Rails[req.Platform].(RailItems)
	if !ok {
		return nil, payouts.Errorf(payouts.EInvalidInput, "%s is served by the %s rail, which keeps no provider records to reconcile against.",
			req.Platform.Label(), s.railName(req.Platform))
	}
	day := req.Start()
	from, to := day.Add(-reconcileSlack), day.Add(24*time.Hour+reconcileSlack)
	inDay := func(t time.Time) bool { return !t.Before(day) && t.Before(day.Add(24*time.Hour)) }

	ours, err := s.payoutsOnRails(ctx, appID, from, to)
	if err != nil {
		return nil, err
	}
	items, err := lister.Items(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("list the %s rail's payments: %w", req.Platform, err)
	}
	byID, byProviderID := map[string]*TransferRecord{}, map[string]*TransferRecord{}
	for i := range ours {
		t := &ours[i]
		byID[t.ID], byProviderID[t.ExternalData.ExternalID] = t, t
		if t.RailReference != "" {
			byProviderID[t.RailReference] = t
		}
	}
	theirs := map[string]RailItem{}
	var unnamed []RailItem
	for _, it := range items {
		t := byID[it.TransferID]
		if t == nil && it.TransferID == "" {
			t = byProviderID[it.ExternalID]
		}
		switch {
		case t != nil && t.ExternalData.Platform != req.Platform:
			// another platform's payout on the same provider account: reported there
		case t != nil:
			theirs[t.ID] = it
		case appID != "" && it.AppID != appID:
		case it.TransferID == "":
			unnamed = append(unnamed, it)
		default:
			theirs[it.TransferID] = it
		}
	}
	out := &payouts.Reconciliation{Platform: req.Platform, Day: req.Day, Differences: []payouts.ReconciliationDifference{}}
	for _, t := range ours {
		if t.ExternalData.Platform != req.Platform {
			continue
		}
		it, found := theirs[t.ID]
		delete(theirs, t.ID)
		if !inDay(t.Created.Time) && (!found || !inDay(it.Created)) {
			continue
		}
		d := payouts.ReconciliationDifference{TransferID: t.ID, ExternalID: t.ExternalData.ExternalID,
			OurAmount: t.Amount, OurStatus: t.Status}
		switch {
		case !found && t.Status == payouts.TransferFailed:
			// Failed with no payment at the provider: no money moved on either side (PayPal lists
			// no transaction for a FAILED, BLOCKED or DENIED item), which is agreement.
			out.Matched++
			continue
		case !found:
			d.Kind = payouts.DiffOursOnly
		case it.Amount != t.Amount:
			d.Kind, d.ExternalID, d.TheirAmount, d.TheirStatus = payouts.DiffAmountDiffers, it.ExternalID, it.Amount, it.Status
		case it.Status != t.Status:
			d.Kind, d.ExternalID, d.TheirAmount, d.TheirStatus = payouts.DiffStatusDiffers, it.ExternalID, it.Amount, it.Status
		default:
			out.Matched++
			continue
		}
		out.Differences = append(out.Differences, d)
	}
	for _, it := range append(slices.Collect(maps.Values(theirs)), unnamed...) {
		if inDay(it.Created) {
			out.Differences = append(out.Differences, payouts.ReconciliationDifference{Kind: payouts.DiffTheirsOnly,
				TransferID: it.TransferID, ExternalID: it.ExternalID, TheirAmount: it.Amount, TheirStatus: it.Status})
		}
	}
	slices.SortFunc(out.Differences, func(a, b payouts.ReconciliationDifference) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.TransferID, b.TransferID), cmp.Compare(a.ExternalID, b.ExternalID))
	})
	return out, nil
}

// railName is the name of the rail serving platform, as configured; a service configured without
// names pays out on the sandbox's rails (sandbox.Wire).
func (s *Service) railName(platform payouts.Platform) string {
	return cmp.Or(s.cfg.RailNames[platform], "sandbox")
}

// payoutsOnRails returns the payouts created from from up to to that reached their rail, on
// every platform: appID's, or every app's when appID is empty. It reads each app's payouts newest
// first down to from, so a recent day costs a few pages. Payouts held for review or refused
// before they reached the rail have no rail id and are left out: the provider never saw them.
func (s *Service) payoutsOnRails(ctx context.Context, appID string, from, to time.Time) ([]TransferRecord, error) {
	apps := []string{appID}
	if appID == "" {
		recs, err := s.store.ListApps(ctx)
		if err != nil {
			return nil, err
		}
		apps = apps[:0]
		for _, a := range recs {
			apps = append(apps, a.ID)
		}
	}
	var out []TransferRecord
	for _, app := range apps {
		page := payouts.Page{Limit: payouts.MaxLimit}
	pages:
		for {
			recs, more, err := s.store.ListTransfers(ctx, app, page, payouts.TransferFilter{Type: payouts.TransferPayout})
			if err != nil {
				return nil, err
			}
			for _, t := range recs {
				if t.Created.Before(from) {
					break pages
				}
				if t.Created.Before(to) && t.ExternalData.ExternalID != "" {
					out = append(out, t)
				}
			}
			if !more || len(recs) == 0 {
				break
			}
			page.StartingAfter = recs[len(recs)-1].ID
		}
	}
	return out, nil
}
