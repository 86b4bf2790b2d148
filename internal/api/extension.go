package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// extensions answers GET /v2/extensions, itself an extension: what this server adds to the
// public API, so that a client asks once instead of assuming. The public service answers 404,
// which a client reads as "none".
func (h *handler) extensions(c *fiber.Ctx) error {
	x := payouts.Extensions{Extensions: []payouts.Extension{
		payouts.ExtStats, payouts.ExtEvents, payouts.ExtWebhookEndpoints, payouts.ExtIDLookup,
		payouts.ExtSummaries, payouts.ExtUserFilters, payouts.ExtTransferFilters, payouts.ExtTransactionFilters, payouts.ExtEventFilters,
		payouts.ExtPayoutLinkFilters, payouts.ExtFlowFilters, payouts.ExtPayoutRequestQueue,
		payouts.ExtTransferReview, payouts.ExtPayoutRequestReview, payouts.ExtPreflight, payouts.ExtAppsEnvelope,
		payouts.ExtStatements,
		payouts.ExtReconciliation, payouts.ExtRails, payouts.ExtScreening, payouts.ExtTaxForms, payouts.ExtMessages, payouts.ExtAPIKeys,
	}}
	if h.svc.Sandbox() {
		x.Extensions = append(x.Extensions, payouts.ExtSandboxMessages)
	}
	return c.JSON(x)
}
