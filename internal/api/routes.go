package api

import "github.com/gofiber/fiber/v2"

// routes lists every route of the API. The app is mounted at /api, so these read /api/v2/...;
// a trailing slash is accepted (Fiber's routing is not strict), and repeated slashes are one.
//
// Each route says who may call it: app is an app's credentials, or an organization's acting as
// one of its apps (Api-App-Id); org is an organization's credentials; pathApp lets an
// organization act as the app of an /apps/{app_id} path.
func (h *handler) routes(r fiber.Router) {
	// A payout provider's notifications carry no API key: the provider's own verification
	// (the rail's RailWebhook) is their proof. Listed before the group, so its authentication
	// never runs for them.
	r.Post("/v2/rail-webhooks/:provider", h.railWebhook)
	// So are a message provider's delivery reports, checked with its signature.
	r.Post("/v2/message-status/:provider/:message_id", h.messageStatus)

	v2 := r.Group("/v2", h.authenticate)
	app, org, pathApp := h.requireApp, h.requireOrganization, h.pathApp

	// Any credentials may ask what the server offers; the answer is the same for all.
	v2.Get("/extensions", h.extensions)

	v2.Post("/apps", org, h.createApp)
	v2.Get("/apps", org, h.listApps)
	v2.Get("/apps/:app_id", pathApp, h.getApp)
	v2.Post("/apps/:app_id/deposit", pathApp, h.deposit)
	v2.Get("/apps/:app_id/stats", pathApp, h.appStats)
	v2.Get("/apps/:app_id/api-keys", pathApp, h.apiKeys)
	v2.Post("/apps/:app_id/api-keys", pathApp, h.createAPIKey)
	v2.Post("/apps/:app_id/api-keys/:key_id/revoke", pathApp, h.revokeAPIKey)
	v2.Post("/apps/:app_id/withdraw", pathApp, h.withdraw)
	v2.Put("/apps/:app_id/ach-account", pathApp, h.setACHAccount)
	v2.Get("/apps/:app_id/ach-account", pathApp, h.getACHAccount)
	v2.Put("/apps/:app_id/compliance", pathApp, h.setAppCompliance)
	v2.Get("/apps/:app_id/compliance", pathApp, h.getAppCompliance)

	v2.Post("/organization-transfers", org, h.createOrganizationTransfer)
	v2.Get("/organization-transfers", org, h.listOrganizationTransfers)
	v2.Get("/organization-transfers/:transfer_id", org, h.getOrganizationTransfer)

	v2.Post("/users", app, h.createUser)
	v2.Get("/users", app, h.listUsers)
	v2.Get("/users/:user_id", app, h.getUser)
	v2.Patch("/users/:user_id", app, h.updateUser)
	v2.Delete("/users/:user_id", app, h.deleteUser)
	v2.Get("/users/:user_id/messages", app, h.userMessages)
	v2.Post("/users/:user_id/send-verification-token", app, h.sendVerificationToken)
	v2.Post("/users/:user_id/verify", app, h.verifyUser)

	v2.Put("/users/:user_id/payout-methods", app, h.addPayoutMethod)
	v2.Get("/users/:user_id/payout-methods", app, h.listPayoutMethods)

	v2.Put("/users/:user_id/compliance", app, h.submitCompliance)
	v2.Get("/users/:user_id/screening", app, h.getScreening)

	v2.Post("/transfers", app, h.createTransfer)
	v2.Get("/transfers", app, h.listTransfers)
	v2.Get("/transfers/summary", app, h.summarizeTransfers)
	v2.Get("/transfers/:transfer_id", app, h.getTransfer)
	v2.Post("/transfers/:transfer_id/review", app, h.reviewTransfer)

	v2.Post("/transfer-batches", app, h.createTransferBatch)
	v2.Get("/transfer-batches", app, h.listTransferBatches)
	v2.Get("/transfer-batches/:batch_id", app, h.getTransferBatch)

	v2.Post("/payouts", app, h.createPayout)
	v2.Post("/payouts/send-payout", app, h.sendPayout)
	v2.Post("/payouts/preflight", app, h.preflightPayout)
	v2.Post("/payouts/preflight-batch", app, h.preflightBatch)

	v2.Post("/payout-requests", app, h.createPayoutRequest)
	v2.Get("/payout-requests", app, h.listPayoutRequests)
	v2.Get("/payout-requests/count", app, h.countPayoutRequests)
	v2.Get("/payout-requests/:request_id", app, h.getPayoutRequest)
	v2.Post("/payout-requests/:request_id/review", app, h.reviewPayoutRequest)

	v2.Post("/payout-links", app, h.createPayoutLink)
	v2.Get("/payout-links", app, h.listPayoutLinks)
	v2.Get("/payout-links/:link_id", app, h.getPayoutLink)
	v2.Delete("/payout-links/:link_id", app, h.cancelPayoutLink)
	v2.Post("/payout-links/:link_id/resend", app, h.resendPayoutLink)
	v2.Post("/payout-links/:link_id/contact", app, h.correctPayoutLinkContact)

	v2.Post("/flows", app, h.createFlow)
	v2.Get("/flows", app, h.listFlows)
	v2.Get("/flows/:flow_id", app, h.getFlow)

	v2.Get("/id-lookup", app, h.idLookup)
	v2.Get("/reconciliation", app, h.reconcile)
	v2.Get("/rails", app, h.listRails)

	v2.Get("/transactions", app, h.listTransactions)
	v2.Get("/transactions/summary", app, h.summarizeTransactions)
	v2.Get("/transactions/:transaction_id", app, h.getTransaction)

	v2.Get("/statement", app, h.statement)

	v2.Get("/tax-years/:year/payees", app, h.taxPayees)
	v2.Post("/tax-years/:year/forms", app, h.generateTaxForms)
	v2.Get("/tax-years/:year/forms", app, h.taxForms)
	v2.Get("/tax-years/:year/copies", app, h.taxFormsZIP)
	v2.Get("/tax-years/:year/iris", app, h.irisFile)
	v2.Get("/tax-forms/:form_id/pdf", app, h.taxFormPDF)
	v2.Get("/users/:user_id/tax-years/:year", app, h.userTaxYear)
	v2.Get("/users/:user_id/tax-forms", app, h.userTaxForms)

	if h.svc.Sandbox() {
		v2.Get("/sandbox/messages", app, h.listSandboxMessages)
	}

	v2.Get("/events", app, h.listEvents)
	v2.Get("/events/:event_id", app, h.getEvent)

	v2.Post("/webhook-endpoints", app, h.createWebhookEndpoint)
	v2.Get("/webhook-endpoints", app, h.listWebhookEndpoints)
	v2.Get("/webhook-endpoints/:endpoint_id", app, h.getWebhookEndpoint)
	v2.Patch("/webhook-endpoints/:endpoint_id", app, h.updateWebhookEndpoint)
	v2.Delete("/webhook-endpoints/:endpoint_id", app, h.deleteWebhookEndpoint)
	v2.Post("/webhook-endpoints/:endpoint_id/rotate-secret", app, h.rotateWebhookSecret)
	v2.Get("/webhook-endpoints/:endpoint_id/attempts", app, h.listWebhookAttempts)
	v2.Post("/webhook-endpoints/:endpoint_id/resend", app, h.resendWebhooks)
	v2.Post("/webhook-endpoints/:endpoint_id/test", app, h.testWebhookEndpoint)
}
