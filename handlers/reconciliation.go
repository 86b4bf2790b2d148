package handlers

import (
	"context"
	"iter"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

const reconciliationTitle = "Reconciliation"

// reconciliation matches a day's payouts on one platform's rail against the provider's records
// (the service's reconciliation) and shows every difference.
func (h *Handlers) reconciliation(c *fiber.Ctx) error { return h.showReconciliation(c, false) }

// exportReconciliation answers the same differences as CSV. A request that yields none to write
// (a problem, no rail to reconcile, a service without reconciliation) gets the page, which says
// why, rather than a file that would pass for "no differences".
func (h *Handlers) exportReconciliation(c *fiber.Ctx) error { return h.showReconciliation(c, true) }

func (h *Handlers) showReconciliation(c *fiber.Ctx, export bool) error {
	if done, err := h.unavailable(c, payouts.ExtReconciliation, reconciliationTitle, "Reconciliation with the payouts provider"); done || err != nil {
		return err
	}
	ctx := c.UserContext()
	choice, err := h.reconcilableRails(ctx)
	if err != nil {
		return err
	}
	req, form := h.reconcileRequestOf(c, choice.first)
	rec, err := h.matchWithProvider(ctx, req, &form)
	if err != nil {
		return err
	}
	if rec != nil && export {
		return h.reconciliationCSV(c, rec)
	}
	p := pages.ReconciliationProps{Filter: form, Platforms: choice.options}
	status := fiber.StatusOK
	switch {
	case rec != nil:
		p.Result = h.reconciliationResult(c, rec)
	case len(form.Errors) > 0 || form.Message != "":
		status = fiber.StatusUnprocessableEntity
	default:
		p.Note = choice.none
	}
	return h.web.Render(c, status, web.Page{Title: reconciliationTitle, Content: pages.Reconciliation(p), Fragment: pages.ReconciliationResult(p)})
}

// railChoice is what the page offers to reconcile: every platform, named with its rail where
// the service says (the extension rails), and the first whose rail is a provider's, which the
// page reconciles unless asked otherwise. none says why nothing is reconciled when no query
// asks and no platform has a provider's rail.
type railChoice struct {
	options []components.Option
	first   payouts.Platform
	none    string
}

func (h *Handlers) reconcilableRails(ctx context.Context) (railChoice, error) {
	named, err := h.offers(ctx, payouts.ExtRails)
	if err != nil {
		return railChoice{}, err
	}
	var choice railChoice
	if !named {
		// The service cannot say which rails are a provider's: offer every platform, ACH first asked.
		choice.first = payouts.PlatformACH
		choice.options = options("", payouts.Platforms, payouts.Platform.Label)[1:]
		return choice, nil
	}
	rails, err := h.payouts.Rails(ctx)
	if err != nil {
		return railChoice{}, err
	}
	for _, r := range rails.Rails {
		choice.options = append(choice.options, components.Option{Value: string(r.Platform), Label: r.Platform.Label() + " — " + railLabel(r.Rail)})
		if choice.first == "" && r.Rail != sandboxRail {
			choice.first = r.Platform
		}
	}
	if choice.first == "" {
		choice.none = "Every platform pays out on the sandbox, which keeps no records to reconcile against: " +
			"reconciliation needs a provider's rail (payoutd's --rails)."
	}
	return choice, nil
}

// reconcileRequestOf reads the platform and the day from the query. Without a platform it is
// first (none when no rail can be reconciled); without a day it is yesterday in UTC, the last
// whole day a provider has listed.
func (h *Handlers) reconcileRequestOf(c *fiber.Ctx, first payouts.Platform) (payouts.ReconcileRequest, components.Form) {
	form := components.Form{Values: map[string]string{"platform": string(first),
		"day": h.now().UTC().AddDate(0, 0, -1).Format(payouts.DayLayout)}}
	for _, name := range []string{"platform", "day"} {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			form.Values[name] = v
		}
	}
	return payouts.ReconcileRequest{Platform: payouts.Platform(form.Value("platform")), Day: form.Value("day")}, form
}

// matchWithProvider asks the service for the reconciliation req names. A request the dashboard or the
// service finds wrong (a day that is not one, a rail that keeps no records) is put on the form
// and answers nil; so does no platform at all, which is the page's note, not a problem.
func (h *Handlers) matchWithProvider(ctx context.Context, req payouts.ReconcileRequest, form *components.Form) (*payouts.Reconciliation, error) {
	if req.Platform == "" {
		return nil, nil
	}
	if formFailed(req.Validate(), form) {
		return nil, nil
	}
	rec, err := h.payouts.Reconcile(ctx, req)
	if formFailed(err, form) {
		return nil, nil
	}
	return rec, err
}

// reconciliationResult is rec in the page's words: a payout links to its page for a role that
// may read transfers, and the export is offered to a role that may export.
func (h *Handlers) reconciliationResult(c *fiber.Ctx, rec *payouts.Reconciliation) *pages.ReconciliationResultProps {
	out := &pages.ReconciliationResultProps{Platform: rec.Platform.Label(), Day: rec.Day, Matched: rec.Matched}
	linked := h.can(c, web.PermTransfersRead)
	for _, d := range rec.Differences {
		ours, theirs := sidesOf(d.Kind)
		row := pages.ReconciliationRow{Kind: d.Kind, TransferID: d.TransferID, ExternalID: d.ExternalID,
			HasOurs: ours, OurAmount: d.OurAmount, OurStatus: d.OurStatus,
			HasTheirs: theirs, TheirAmount: d.TheirAmount, TheirStatus: d.TheirStatus}
		if linked && d.TransferID != "" {
			row.TransferURL = paths.Transfer(d.TransferID)
		}
		out.Differences = append(out.Differences, row)
	}
	if h.can(c, web.PermExport) {
		out.ExportURL = "/reconciliation/export?" + reconcileQuery(rec).Encode()
	}
	return out
}

// reconcileQuery is the query that asks for rec again.
func reconcileQuery(rec *payouts.Reconciliation) url.Values {
	return url.Values{"platform": {string(rec.Platform)}, "day": {rec.Day}}
}

// sidesOf says which sides a difference of kind has: ours, theirs or both.
func sidesOf(kind string) (ours, theirs bool) {
	return kind != payouts.DiffTheirsOnly, kind != payouts.DiffOursOnly
}

var reconciliationCSVHeader = []string{"difference", "transfer_id", "external_id", "our_amount", "their_amount", "our_status", "their_status"}

// reconciliationCSV answers rec's differences as CSV, amounts in dollars; a side a row lacks
// has empty cells; its zone is UTC, the rail's day's. The export is recorded in the audit log.
func (h *Handlers) reconciliationCSV(c *fiber.Ctx, rec *payouts.Reconciliation) error {
	h.audit(c, "reconciliation.export", "reconciliation", "", "CSV of "+describeQuery(reconcileQuery(rec)))
	return exportCSV(c, h.web, "reconciliation-"+string(rec.Platform)+"-"+rec.Day+".csv", time.UTC, reconciliationCSVHeader,
		func(context.Context) iter.Seq2[payouts.ReconciliationDifference, error] {
			return func(yield func(payouts.ReconciliationDifference, error) bool) {
				for _, d := range rec.Differences {
					if !yield(d, nil) {
						return
					}
				}
			}
		},
		func(_ context.Context, d payouts.ReconciliationDifference) ([]string, error) {
			row := []string{d.Kind, csvText(d.TransferID), csvText(d.ExternalID), "", "", "", ""}
			ours, theirs := sidesOf(d.Kind)
			if ours {
				row[3], row[5] = d.OurAmount.Decimal(), string(d.OurStatus)
			}
			if theirs {
				row[4], row[6] = d.TheirAmount.Decimal(), string(d.TheirStatus)
			}
			return row, nil
		})
}
