package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/payouts"
)

// CreateOrganizationTransfer moves money between the organization's wallet and one of its apps':
// a negative amount from the organization to the app, a positive one from the app to the
// organization. Each side keeps its own balanced ledger: the organization's wallet against an
// external account standing for the app, and the app's wallet against one standing for the
// organization, both written in one transaction.
func (s *Service) CreateOrganizationTransfer(ctx context.Context, orgID string, req payouts.CreateOrganizationTransferRequest) (*payouts.OrganizationTransfer, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	id, _, err := s.idempotent(ctx, orgID, "organization-transfer", req.IdempotencyKey, req, false, func(q *Tx) (string, error) {
		app, err := q.GetApp(ctx, req.APIAppID)
		if err != nil || app.Kind != KindApp || app.OrganizationID != orgID {
			return "", orNotFound(ErrNoRecord, "app")
		}
		orgBook, err := s.planBook(ctx, q, orgID)
		if err != nil {
			return "", err
		}
		appBook, err := s.planBook(ctx, q, app.ID)
		if err != nil {
			return "", err
		}
		orgWallet, err := orgBook.app(ctx)
		if err != nil {
			return "", err
		}
		appSide, err := orgBook.account(ctx, ledger.External, "app:"+app.ID, app.Name, "")
		if err != nil {
			return "", err
		}
		appWallet, err := appBook.app(ctx)
		if err != nil {
			return "", err
		}
		orgSide, err := appBook.account(ctx, ledger.External, "organization", orgBook.appName, "")
		if err != nil {
			return "", err
		}
		t := &OrganizationTransferRecord{IdempotencyKey: req.IdempotencyKey, OrganizationTransfer: payouts.OrganizationTransfer{
			ID: newID(), Created: payouts.NewTime(s.now()), Amount: payouts.Money(req.Amount),
			APIAppID: app.ID, Status: payouts.TransferCompleted, Metadata: payouts.NormalizeMetadata(req.Metadata),
			OrganizationID: orgID}}
		amount := payouts.Money(req.Amount)
		orgLine := line{from: appSide, to: orgWallet, amount: amount, typ: payouts.TransactionBalance, metadata: t.Metadata}
		appLine := line{from: appWallet, to: orgSide, amount: amount, typ: payouts.TransactionBalance, metadata: t.Metadata}
		if amount < 0 {
			orgLine.from, orgLine.to, orgLine.amount = orgWallet, appSide, -amount
			appLine.from, appLine.to, appLine.amount = orgSide, appWallet, -amount
		}
		// One movement of the two ledgers: an overdraft on either side refuses both.
		_, appChanges := appBook.lines(t.ID, []line{appLine})
		_, orgChanges := orgBook.lines(t.ID, []line{orgLine})
		if err := appBook.post(ctx, append(appChanges, orgChanges...), orgBook); err != nil {
			return "", err
		}
		return t.ID, q.CreateOrganizationTransfer(ctx, t)
	})
	if err != nil {
		return nil, err
	}
	return s.GetOrganizationTransfer(ctx, orgID, id)
}

// GetOrganizationTransfer returns one of the organization's transfers.
func (s *Service) GetOrganizationTransfer(ctx context.Context, orgID, id string) (*payouts.OrganizationTransfer, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("organization transfer")
	}
	t, err := s.store.GetOrganizationTransfer(ctx, orgID, id)
	if err != nil {
		return nil, orNotFound(err, "organization transfer")
	}
	return &t.OrganizationTransfer, nil
}

// ListOrganizationTransfers returns a page of the organization's transfers, newest first.
func (s *Service) ListOrganizationTransfers(ctx context.Context, orgID string, page payouts.Page) (*payouts.List[payouts.OrganizationTransfer], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListOrganizationTransfers(ctx, orgID, page)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.OrganizationTransfer]{HasMore: more, Data: make([]payouts.OrganizationTransfer, len(recs))}
	for i := range recs {
		out.Data[i] = recs[i].OrganizationTransfer
	}
	return out, nil
}

// checkOrganizationMirrors verifies that what an organization's ledger says it moved with each
// of its apps is what each app's ledger says it moved with the organization: the two external
// accounts an organization transfer writes mirror each other. Anything but an organization passes.
func (s *Service) checkOrganizationMirrors(ctx context.Context, orgID string) error {
	org, err := s.store.GetApp(ctx, orgID)
	if err != nil || org.Kind != KindOrganization {
		return orNone(err)
	}
	page := payouts.Page{Limit: payouts.MaxLimit}
	for {
		apps, more, err := s.store.ListOrganizationApps(ctx, orgID, page)
		if err != nil {
			return err
		}
		for _, app := range apps {
			inOrg, err := s.wallet(ctx, s.store, orgID, ledger.External, "app:"+app.ID)
			if err != nil {
				return err
			}
			inApp, err := s.wallet(ctx, s.store, app.ID, ledger.External, "organization")
			if err != nil {
				return err
			}
			if inOrg.Amount != -inApp.Amount {
				return &LedgerViolation{AppID: orgID, Problems: []string{fmt.Sprintf(
					"organization %s and app %s disagree: %v against %v", orgID, app.ID, inOrg.Amount, inApp.Amount)}}
			}
		}
		if !more || len(apps) == 0 {
			return nil
		}
		page.StartingAfter = apps[len(apps)-1].ID
	}
}

// orNone is nil for a record that does not exist, else err.
func orNone(err error) error {
	if errors.Is(err, ErrNoRecord) {
		return nil
	}
	return err
}
