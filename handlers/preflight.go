package handlers

import (
	"context"
	"slices"
	"strings"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// The dashboard decides no payout rule itself: it asks the service's preflight, which runs the
// real request's rules without moving money, and shows what it names. Only routes of roles that
// may pay (or approve) ask it.

// preflight asks the service's preflight through ask. A service without the preflight (the
// public API) has nothing to tell: nil, and the real request decides.
func (h *Handlers) preflight(ctx context.Context, ask func(context.Context) (*payouts.Preflight, error)) (*payouts.Preflight, error) {
	if ok, err := h.offers(ctx, payouts.ExtPreflight); !ok || err != nil {
		return nil, err
	}
	return ask(ctx)
}

// preflightPayout asks the service what it would make of req; nil without a preflight.
func (h *Handlers) preflightPayout(ctx context.Context, req payouts.CreatePayoutRequest) (*payouts.Preflight, error) {
	return h.preflight(ctx, func(ctx context.Context) (*payouts.Preflight, error) { return h.payouts.PreflightPayout(ctx, req) })
}

// preflightItems asks the service about items in order, payouts.MaxPreflightItems to a call,
// each checked as if those before it in its call that pass had been made. nil when the service
// has no preflight.
func (h *Handlers) preflightItems(ctx context.Context, items []payouts.PreflightItem) ([]payouts.Preflight, error) {
	if ok, err := h.offers(ctx, payouts.ExtPreflight); !ok || err != nil || len(items) == 0 {
		return nil, err
	}
	out := make([]payouts.Preflight, 0, len(items))
	for chunk := range slices.Chunk(items, payouts.MaxPreflightItems) {
		batch, err := h.payouts.PreflightBatch(ctx, payouts.PreflightBatchRequest{Items: chunk})
		if err != nil {
			return nil, err
		}
		out = append(out, batch.Items...)
	}
	return out, nil
}

// preflightFailed puts a preflight's problems on form, as formFailed does a refusal: each on its
// field, the rest above the form. It reports whether there were any.
func preflightFailed(pf *payouts.Preflight, form *components.Form) bool {
	if pf == nil || pf.OK {
		return false
	}
	var general []string
	for _, p := range pf.Problems {
		if p.Field != "" {
			addProblem(form, p.Field, strings.TrimPrefix(p.Message, p.Field+": "))
		} else {
			general = append(general, p.Message)
		}
	}
	form.Message = strings.Join(general, " ")
	if form.Message == "" && len(form.Errors) > 1 {
		form.Message = "Some fields need attention."
	}
	return true
}

// problemsText is a preflight's problems as one text, for a row of a table.
func problemsText(pf payouts.Preflight) string {
	texts := make([]string, len(pf.Problems))
	for i, p := range pf.Problems {
		texts[i] = p.Message
	}
	return strings.Join(texts, " ")
}
