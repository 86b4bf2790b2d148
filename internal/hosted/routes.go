package hosted

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// Register adds every hosted route to r, which is meant to be the service's root. Each route
// carries its own wrappers rather than router-wide middleware, so that nothing here touches the
// routes of the API mounted beside them.
func (h *Handler) Register(r fiber.Router) {
	get := func(path string, fn fiber.Handler) { r.Get(path, h.page(fn)) }
	post := func(path string, fn fiber.Handler) { r.Post(path, h.page(h.sameOrigin(fn))) }

	get("/static/*", h.assets.Serve)

	get("/l/:id", h.payoutLink)

	get("/f/:id", h.flow)
	post("/f/:id/identify", h.identify)
	post("/f/:id/verify", h.forPayee(stageCode, h.verify))
	post("/f/:id/resend", h.forPayee(stageCode, h.resend))
	post("/f/:id/details", h.forPayee(stageDetails, h.details))
	post("/f/:id/show", h.forPayee(stageSteps, h.showChoice))
	post("/f/:id/compliance", h.forPayee(stageSteps, h.submitCompliance, payouts.StepCompliance))
	post("/f/:id/id-verification", h.forPayee(stageSteps, h.verifyIdentity, payouts.StepIDVerification))
	post("/f/:id/background-check", h.forPayee(stageSteps, h.backgroundCheck, payouts.StepBackgroundCheck))
	post("/f/:id/payout-methods", h.forPayee(stageSteps, h.addPayoutMethod,
		payouts.StepManagePayments, payouts.StepManagePayouts, payouts.StepPayout))
	post("/f/:id/manage-payments", h.forPayee(stageSteps, h.confirmPayoutMethods, payouts.StepManagePayments))
	post("/f/:id/manage-payouts", h.forPayee(stageSteps, h.confirmPayoutMethods, payouts.StepManagePayouts))
	post("/f/:id/payout", h.forPayee(stageSteps, h.payout, payouts.StepPayout))
	post("/f/:id/tax-forms", h.forPayee(stageSteps, h.taxForms, payouts.StepTaxForms))
	post("/f/:id/tax-forms/withdraw", h.forPayee(stageSteps, h.withdrawTaxConsent, payouts.StepTaxForms))
	post("/f/:id/tax-forms/pdf", h.forPayee(stageSteps, h.taxFormPDF, payouts.StepTaxForms))
	post("/f/:id/redirect", h.forPayee(stageSteps, h.redirect, payouts.StepRedirect))
	get("/f/:id/*", h.restart)
}
