package api

import "github.com/gofiber/fiber/v2"

// routes lists every route of the API. The app is mounted at /api, so these read /api/v2/...;
// a trailing slash is accepted (Fiber's routing is not strict).
func (h *handler) routes(r fiber.Router) {
	v2 := r.Group("/v2", h.authenticate)

	v2.Get("/apps/:app_id", h.getApp)
	v2.Post("/apps/:app_id/deposit", h.deposit)
	v2.Get("/apps/:app_id/stats", h.appStats)

	v2.Post("/users", h.createUser)
	v2.Get("/users", h.listUsers)
	v2.Get("/users/:user_id", h.getUser)
	v2.Patch("/users/:user_id", h.updateUser)
	v2.Delete("/users/:user_id", h.deleteUser)
	v2.Post("/users/:user_id/send-verification-token", h.sendVerificationToken)
	v2.Post("/users/:user_id/verify", h.verifyUser)

	v2.Put("/users/:user_id/payout-methods", h.addPayoutMethod)
	v2.Get("/users/:user_id/payout-methods", h.listPayoutMethods)

	v2.Put("/users/:user_id/compliance", h.submitCompliance)

	v2.Post("/transfers", h.createTransfer)
	v2.Get("/transfers", h.listTransfers)
	v2.Get("/transfers/:transfer_id", h.getTransfer)
	v2.Post("/transfers/:transfer_id/review", h.reviewTransfer)

	v2.Post("/payouts", h.createPayout)

	v2.Post("/payout-links", h.createPayoutLink)
	v2.Get("/payout-links", h.listPayoutLinks)
	v2.Get("/payout-links/:link_id", h.getPayoutLink)
	v2.Delete("/payout-links/:link_id", h.cancelPayoutLink)

	v2.Post("/flows", h.createFlow)
	v2.Get("/flows", h.listFlows)
	v2.Get("/flows/:flow_id", h.getFlow)

	v2.Get("/transactions", h.listTransactions)
	v2.Get("/transactions/:transaction_id", h.getTransaction)
}
