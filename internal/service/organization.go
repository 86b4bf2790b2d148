package service

import (
	"context"

	"github.com/disburse/disburse/payouts"
)

// The key model: an organization has one set of credentials, and so has each app. Organization
// credentials create and list the organization's apps and move money between the organization's
// wallet and its apps'; they act as one of their apps by naming it (the Api-App-Id header, or
// the app's id in an /apps/{id} path). App credentials see only their app.

// CreateOrganization makes an organization with fresh API credentials, shown once.
func (s *Service) CreateOrganization(ctx context.Context, name string) (payouts.Credentials, error) {
	return s.createTenant(ctx, &AppRecord{Kind: KindOrganization, Name: name, Status: payouts.AppApproved}, FirstKeyName)
}

// CreateOrganizationApp makes an app of the organization and returns it with its own
// credentials, shown once.
func (s *Service) CreateOrganizationApp(ctx context.Context, orgID string, req payouts.CreateAppRequest) (*payouts.App, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	creds, err := s.createTenant(ctx, &AppRecord{Kind: KindApp, OrganizationID: orgID, Name: req.Name,
		Metadata: req.Metadata, Status: payouts.AppApproved}, FirstKeyName)
	if err != nil {
		return nil, err
	}
	app, err := s.GetApp(ctx, creds.AppID, creds.AppID)
	if err != nil {
		return nil, err
	}
	app.Credentials = &creds
	return app, nil
}

// ListOrganizationApps returns a page of the organization's apps, newest first.
func (s *Service) ListOrganizationApps(ctx context.Context, orgID string, page payouts.Page) (*payouts.List[payouts.App], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListOrganizationApps(ctx, orgID, page)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.App]{HasMore: more, Data: make([]payouts.App, len(recs))}
	for i := range recs {
		app, err := s.appOf(ctx, s.store, &recs[i])
		if err != nil {
			return nil, err
		}
		out.Data[i] = *app
	}
	return out, nil
}

// AdoptApps puts every app made before there were organizations into the organization, so that
// its credentials reach them. payoutd does it when it makes the first organization.
func (s *Service) AdoptApps(ctx context.Context, orgID string) error {
	defer s.credentials.forget() // they remember each app's organization
	return s.inTx(ctx, func(q *Tx) error {
		apps, err := q.ListApps(ctx)
		if err != nil {
			return err
		}
		for i := range apps {
			if apps[i].OrganizationID == "" {
				apps[i].OrganizationID = orgID
				if err := q.UpdateApp(ctx, &apps[i]); err != nil {
					return err
				}
				q.appUpdated(&apps[i])
			}
		}
		return nil
	})
}

// ActAs returns the principal acting as the app id: an organization may act as any of its apps,
// an app only as itself. Any other app is not found, as if it did not exist.
func (s *Service) ActAs(ctx context.Context, p Principal, id string) (*Principal, error) {
	if p.AppID == id {
		return &p, nil
	}
	if !p.Organization || !payouts.ValidID(id) {
		return nil, notFound("app")
	}
	rec, err := s.store.GetApp(ctx, id)
	if err != nil {
		return nil, orNotFound(err, "app")
	}
	if rec.Kind != KindApp || rec.OrganizationID != p.OrganizationID {
		return nil, notFound("app")
	}
	p.AppID = id
	return &p, nil
}
