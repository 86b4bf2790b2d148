package service

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/disburse/disburse/payouts"
)

// CreateFlow makes a hosted flow a payee completes step by step.
func (s *Service) CreateFlow(ctx context.Context, appID string, req payouts.CreateFlowRequest) (*payouts.Flow, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	steps, redirect := payouts.StepOrder(req.Steps)
	if err := s.checkRedirect("steps", redirect); err != nil {
		return nil, err
	}
	f := s.newFlow(appID, steps, redirect, req.Metadata)
	err := s.inTx(ctx, func(q *Tx) error {
		if req.UserID != "" {
			if _, err := s.getUser(ctx, q, appID, req.UserID); err != nil {
				return err
			}
			f.UserID = &req.UserID
		}
		return q.CreateFlow(ctx, f)
	})
	if err != nil {
		return nil, err
	}
	return &f.Flow, nil
}

func (s *Service) newFlow(appID string, steps []string, redirect string, md payouts.Metadata) *FlowRecord {
	f := &FlowRecord{AppID: appID, Flow: payouts.Flow{
		ID: newUnguessableID(), Created: payouts.NewTime(s.now()), Steps: steps, CompletedSteps: []string{},
		RedirectURL: redirect, Metadata: payouts.NormalizeMetadata(md),
	}}
	f.Link = s.FlowURL(f.ID)
	return f
}

// FlowURL is where a payee opens a flow.
func (s *Service) FlowURL(id string) string {
	return strings.TrimRight(s.cfg.PublicURL, "/") + "/f/" + id
}

// PayoutLinkURL is where a payee opens a payout link: with its claim key when it names nobody.
func (s *Service) PayoutLinkURL(l *payouts.PayoutLink) string {
	return strings.TrimRight(s.cfg.PublicURL, "/") + "/l/" + l.ID + withKey(s.claimKeyOf(l))
}

// withKey is the query a hosted URL carries for a claim key, if any.
func withKey(key string) string {
	if key == "" {
		return ""
	}
	return "?k=" + key
}

// checkRedirect refuses a redirect step's URL unless it is https or, in sandbox mode only, http
// to the developer's own machine (localhost, 127.0.0.1, [::1]).
func (s *Service) checkRedirect(field, redirect string) error {
	u, err := url.Parse(redirect)
	if redirect == "" || err == nil && (u.Scheme == "https" ||
		u.Scheme == "http" && s.cfg.Sandbox && slices.Contains([]string{"localhost", "127.0.0.1", "::1"}, u.Hostname())) {
		return nil
	}
	return payouts.FieldError(field, "the redirect step needs a redirect_url starting with https://")
}

// GetFlow returns a flow.
func (s *Service) GetFlow(ctx context.Context, appID, id string) (*payouts.Flow, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("flow")
	}
	f, err := s.store.GetFlow(ctx, appID, id)
	if err != nil {
		return nil, orNotFound(err, "flow")
	}
	return s.flowOut(f), nil
}

// flowOut is a stored flow as the API shows it, with its link.
func (s *Service) flowOut(f *FlowRecord) *payouts.Flow {
	out := f.Flow
	out.Link = s.FlowURL(f.ID)
	return &out
}

// ListFlows returns a page of flows, newest first.
func (s *Service) ListFlows(ctx context.Context, appID string, page payouts.Page, f payouts.FlowFilter) (*payouts.List[payouts.Flow], error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	recs, more, err := s.store.ListFlows(ctx, appID, page, f)
	if err != nil {
		return nil, cursorError(err, page)
	}
	out := &payouts.List[payouts.Flow]{HasMore: more, Data: make([]payouts.Flow, len(recs))}
	for i := range recs {
		out.Data[i] = *s.flowOut(&recs[i])
	}
	return out, nil
}

// OpenFlow returns a flow by id alone, with its app: the hosted pages' entry point.
func (s *Service) OpenFlow(ctx context.Context, id string) (*FlowRecord, error) {
	if !payouts.ValidID(id) {
		return nil, notFound("flow")
	}
	f, err := s.store.FlowByID(ctx, id)
	if err != nil {
		return nil, orNotFound(err, "flow")
	}
	f.Link = s.FlowURL(f.ID)
	return f, nil
}

// CompleteFlowStep marks a step of the flow done for the user working through it. Completing a
// step twice changes nothing.
func (s *Service) CompleteFlowStep(ctx context.Context, flowID, userID, step string) (*FlowRecord, error) {
	var out *FlowRecord
	err := s.inTx(ctx, func(q *Tx) error {
		f, err := q.FlowByID(ctx, flowID)
		if err != nil {
			return orNotFound(err, "flow")
		}
		if !slices.Contains(f.Steps, step) {
			return payouts.FieldError("step", "is not a step of this flow")
		}
		if f.UserID != nil && *f.UserID != userID {
			return payouts.Errorf(payouts.EUnauthorized, "This flow belongs to someone else.")
		}
		before := f.Flow
		before.CompletedSteps = slices.Clone(f.CompletedSteps)
		f.UserID = &userID
		if !slices.Contains(f.CompletedSteps, step) {
			f.CompletedSteps = append(f.CompletedSteps, step)
		}
		if err := q.updateFlow(ctx, before, f); err != nil {
			return err
		}
		out = f
		return nil
	})
	return out, err
}

// NextStep is the first step of the flow not completed yet, or "" when all are.
func NextStep(f *payouts.Flow) string {
	for _, st := range f.Steps {
		if !slices.Contains(f.CompletedSteps, st) {
			return st
		}
	}
	return ""
}
