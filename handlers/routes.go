package handlers

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/web"
)

// Nav is the dashboard's navigation; each operator sees the links their role allows. The pages
// visited less often (the sandbox's inbox, the pages of managers and admins) sit under More, so
// the bar holds on one row on a laptop.
var Nav = []web.NavItem{
	{Label: "Overview", Href: "/overview", Perm: web.PermAppRead},
	{Label: "Approvals", Href: "/approvals", Perm: web.PermAppRead},
	{Label: "Users", Href: "/users", Perm: web.PermUsersRead},
	{Label: "Transfers", Href: "/transfers", Perm: web.PermTransfersRead},
	{Label: "Transactions", Href: "/transactions", Perm: web.PermTransfersRead},
	{Label: "Statement", Href: "/statement", Perm: web.PermTransfersRead},
	{Label: "Payout links", Href: "/payout-links", Perm: web.PermLinksRead},
	{Label: "Flows", Href: "/flows", Perm: web.PermFlowsRead},
	{Label: "Sandbox inbox", Href: "/sandbox/inbox", Perm: web.PermUsersWrite, More: true},
	{Label: "Bulk payouts", Href: "/bulk", Perm: web.PermMoneyMove},
	{Label: "App wallet", Href: "/app", Perm: web.PermAppRead},
	{Label: "Events", Href: "/events", Perm: web.PermEventsRead, More: true},
	{Label: "Webhooks", Href: "/webhooks", Perm: web.PermWebhooksRead, More: true},
	{Label: "Operators", Href: "/operators", Perm: web.PermOperatorsManage, More: true},
	{Label: "Reconciliation", Href: "/reconciliation", Perm: web.PermReconciliationRead, More: true},
	{Label: "Tax forms", Href: "/tax", Perm: web.PermTaxForms, More: true},
	{Label: "Audit log", Href: "/audit", Perm: web.PermAuditRead, More: true},
	{Label: "Developers", Href: "/developers", Perm: web.PermAPIKeys, More: true},
}

// routes lists every page and action of the dashboard with the permission it needs. Actions are
// POSTs from plain forms, so everything works without JavaScript; htmx only swaps parts.
func (h *Handlers) routes() []web.Route {
	const get, post = fiber.MethodGet, fiber.MethodPost
	return []web.Route{
		{Method: get, Path: "/login", Perm: web.PermPublic, Handler: h.loginPage},
		{Method: post, Path: "/login", Perm: web.PermPublic, Handler: h.login},
		{Method: post, Path: "/logout", Perm: web.PermSignedIn, Handler: h.logout},
		{Method: get, Path: "/", Perm: web.PermSignedIn, Handler: h.home},
		{Method: get, Path: "/overview", Perm: web.PermAppRead, Handler: h.overview},
		// Every operator sets their own time zone, and only their own.
		{Method: get, Path: "/settings", Perm: web.PermSignedIn, Handler: h.settings},
		{Method: post, Path: "/settings/time-zone", Perm: web.PermSignedIn, Handler: h.setTimeZone},
		// Every operator may search; the results hold only the kinds their role may read.
		{Method: get, Path: "/search", Perm: web.PermSignedIn, Handler: h.search},

		{Method: get, Path: "/users", Perm: web.PermUsersRead, Handler: h.users},
		{Method: get, Path: "/users/new", Perm: web.PermUsersWrite, Handler: h.newUser},
		{Method: get, Path: "/users/suggest", Perm: web.PermUsersRead, Handler: h.suggestUsers},
		{Method: post, Path: "/users", Perm: web.PermUsersWrite, Handler: h.createUser},
		{Method: get, Path: "/users/:id", Perm: web.PermUsersRead, Handler: h.user},
		{Method: get, Path: "/users/:id/delete", Perm: web.PermUsersWrite, Handler: h.confirmDeleteUser},
		{Method: post, Path: "/users/:id/delete", Perm: web.PermUsersWrite, Handler: h.deleteUser},
		{Method: post, Path: "/users/:id/verification-token", Perm: web.PermUsersWrite, Handler: h.sendVerificationToken},
		{Method: post, Path: "/users/:id/verify", Perm: web.PermUsersWrite, Handler: h.verifyUser},
		{Method: get, Path: "/users/:id/payout-methods/new", Perm: web.PermUsersWrite, Handler: h.newPayoutMethod},
		{Method: get, Path: "/users/:id/payout-methods/routing-number", Perm: web.PermUsersWrite, Handler: h.checkRoutingNumber},
		{Method: post, Path: "/users/:id/payout-methods", Perm: web.PermUsersWrite, Handler: h.addPayoutMethod},
		{Method: get, Path: "/users/:id/compliance", Perm: web.PermUsersWrite, Handler: h.newCompliance},
		{Method: post, Path: "/users/:id/compliance", Perm: web.PermUsersWrite, Handler: h.submitCompliance},
		{Method: post, Path: "/users/:id/transfers", Perm: web.PermMoneyMove, Handler: h.moveMoney},
		{Method: post, Path: "/users/:id/payouts", Perm: web.PermMoneyMove, Handler: h.sendPayout},

		// Literal paths come before the :id routes of the same prefix, which would take them.
		{Method: get, Path: "/transfers", Perm: web.PermTransfersRead, Handler: h.transfers},
		{Method: get, Path: "/transfers/export", Perm: web.PermExport, Handler: h.exportTransfers},
		{Method: get, Path: "/transfers/:id", Perm: web.PermTransfersRead, Handler: h.transfer},
		{Method: post, Path: "/transfers/:id/review", Perm: web.PermMoneyMove, Handler: h.reviewTransfer},
		// A failed payout's retry: what it will do first, then a payout under a key derived
		// from the failed one's id, so a double submit makes one.
		{Method: get, Path: "/transfers/:id/retry", Perm: web.PermMoneyMove, Handler: h.confirmRetryPayout},
		{Method: post, Path: "/transfers/:id/retry", Perm: web.PermMoneyMove, Handler: h.retryPayout},

		{Method: get, Path: "/transactions", Perm: web.PermTransfersRead, Handler: h.transactions},
		{Method: get, Path: "/transactions/export", Perm: web.PermExport, Handler: h.exportTransactions},
		{Method: get, Path: "/transactions/:id", Perm: web.PermTransfersRead, Handler: h.transaction},

		// A statement is the same ledger lines the transactions list shows, so whoever reads
		// transaction histories reads statements (support does not).
		{Method: get, Path: "/statement", Perm: web.PermTransfersRead, Handler: h.statement},
		{Method: get, Path: "/statement/export", Perm: web.PermExport, Handler: h.exportStatement},

		{Method: get, Path: "/payout-links", Perm: web.PermLinksRead, Handler: h.payoutLinks},
		{Method: get, Path: "/payout-links/new", Perm: web.PermLinksWrite, Handler: h.newPayoutLink},
		{Method: post, Path: "/payout-links", Perm: web.PermLinksWrite, Handler: h.createPayoutLink},
		{Method: get, Path: "/payout-links/:id", Perm: web.PermLinksRead, Handler: h.payoutLink},
		{Method: post, Path: "/payout-links/:id/cancel", Perm: web.PermLinksCancel, Handler: h.cancelPayoutLink},
		{Method: post, Path: "/payout-links/:id/resend", Perm: web.PermLinksWrite, Handler: h.resendPayoutLink},
		{Method: post, Path: "/payout-links/:id/contact", Perm: web.PermLinksWrite, Handler: h.correctPayoutLink},

		{Method: get, Path: "/flows", Perm: web.PermFlowsRead, Handler: h.flows},
		{Method: get, Path: "/flows/new", Perm: web.PermFlowsWrite, Handler: h.newFlow},
		{Method: post, Path: "/flows", Perm: web.PermFlowsWrite, Handler: h.createFlow},
		{Method: get, Path: "/flows/:id", Perm: web.PermFlowsRead, Handler: h.flow},
		{Method: get, Path: "/flows/:id/progress", Perm: web.PermFlowsRead, Handler: h.flowProgress},

		// Codes in the inbox let whoever reads them act as a payee: only those who verify users.
		{Method: get, Path: "/sandbox/inbox", Perm: web.PermUsersWrite, Handler: h.sandboxInbox},

		{Method: get, Path: "/bulk", Perm: web.PermMoneyMove, Handler: h.bulkPage},
		{Method: post, Path: "/bulk", Perm: web.PermMoneyMove, Handler: h.uploadBulk, BodyLimit: bulkUploadLimit},
		{Method: get, Path: "/bulk/:id", Perm: web.PermMoneyMove, Handler: h.bulkJob},
		{Method: get, Path: "/bulk/:id/progress", Perm: web.PermMoneyMove, Handler: h.bulkProgress},
		{Method: get, Path: "/bulk/:id/result.csv", Perm: web.PermMoneyMove, Handler: h.bulkResult},
		{Method: post, Path: "/bulk/:id/confirm", Perm: web.PermMoneyMove, Handler: h.confirmBulk},
		{Method: post, Path: "/bulk/:id/cancel", Perm: web.PermMoneyMove, Handler: h.cancelBulk},
		// Who may confirm a file's repeated rows (anyone who may move money but its uploader) is
		// checked by the handler.
		{Method: post, Path: "/bulk/:id/repeats", Perm: web.PermMoneyMove, Handler: h.confirmBulkRepeats},

		{Method: get, Path: "/app", Perm: web.PermAppRead, Handler: h.app},
		{Method: post, Path: "/app/deposits", Perm: web.PermMoneyMove, Handler: h.deposit},

		{Method: get, Path: "/operators", Perm: web.PermOperatorsManage, Handler: h.operators},
		{Method: post, Path: "/operators", Perm: web.PermOperatorsManage, Handler: h.createOperator},
		{Method: get, Path: "/operators/:id", Perm: web.PermOperatorsManage, Handler: h.operator},
		{Method: post, Path: "/operators/:id/role", Perm: web.PermOperatorsManage, Handler: h.changeOperatorRole},
		{Method: post, Path: "/operators/:id/disable", Perm: web.PermOperatorsManage, Handler: h.disableOperator},
		{Method: post, Path: "/operators/:id/enable", Perm: web.PermOperatorsManage, Handler: h.enableOperator},
		{Method: post, Path: "/operators/:id/password", Perm: web.PermOperatorsManage, Handler: h.resetOperatorPassword},

		// A day's payouts against the provider's records: for those who answer for the books.
		{Method: get, Path: "/reconciliation", Perm: web.PermReconciliationRead, Handler: h.reconciliation},

		// Year-end 1099-NEC forms: admins and managers. Every generation, download and W-9
		// request is audited.
		{Method: get, Path: "/tax", Perm: web.PermTaxForms, Handler: h.taxForms},
		{Method: post, Path: "/tax/generate", Perm: web.PermTaxForms, Handler: h.generateTaxForms},
		{Method: post, Path: "/tax/w9-requests", Perm: web.PermTaxForms, Handler: h.requestW9s},
		{Method: post, Path: "/tax/delivery-offers", Perm: web.PermTaxForms, Handler: h.offerDelivery},
		{Method: get, Path: "/tax/forms/:id/pdf", Perm: web.PermTaxForms, Handler: h.taxFormPDF},
		{Method: get, Path: "/tax/copies", Perm: web.PermTaxForms, Handler: h.taxCopies},
		{Method: get, Path: "/tax/iris", Perm: web.PermTaxForms, Handler: h.taxIRIS},
		{Method: get, Path: "/reconciliation/export", Perm: web.PermExport, Handler: h.exportReconciliation},

		// The app's API keys: admins only. Every key made or revoked is audited.
		{Method: get, Path: "/developers", Perm: web.PermAPIKeys, Handler: h.developers},
		{Method: post, Path: "/developers/keys", Perm: web.PermAPIKeys, Handler: h.createAPIKey},
		{Method: get, Path: "/developers/keys/:id/revoke", Perm: web.PermAPIKeys, Handler: h.confirmRevokeAPIKey},
		{Method: post, Path: "/developers/keys/:id/revoke", Perm: web.PermAPIKeys, Handler: h.revokeAPIKey},

		{Method: get, Path: "/audit", Perm: web.PermAuditRead, Handler: h.auditLog},
		{Method: get, Path: "/audit/export", Perm: web.PermAuditRead, Handler: h.exportAudit},

		// Who may decide is the approval policy's roles, checked by the handlers: a maker sees
		// their own request, and everyone who reads the app sees the queue.
		{Method: get, Path: "/approvals", Perm: web.PermAppRead, Handler: h.approvals},
		{Method: get, Path: "/approvals/:id", Perm: web.PermAppRead, Handler: h.approval},
		{Method: post, Path: "/approvals/:id/decision", Perm: web.PermAppRead, Handler: h.decideApproval},
		{Method: get, Path: "/payout-requests/:id", Perm: web.PermAppRead, Handler: h.payoutRequest},
		{Method: post, Path: "/payout-requests/:id/review", Perm: web.PermAppRead, Handler: h.reviewPayoutRequest},

		// Managers read endpoints and their attempts; only those who manage them change them.
		{Method: get, Path: "/webhooks", Perm: web.PermWebhooksRead, Handler: h.webhooks},
		{Method: post, Path: "/webhooks", Perm: web.PermWebhooksManage, Handler: h.createWebhook},
		{Method: get, Path: "/webhooks/:id", Perm: web.PermWebhooksRead, Handler: h.webhook},
		{Method: post, Path: "/webhooks/:id/enabled", Perm: web.PermWebhooksManage, Handler: h.setWebhookEnabled},
		{Method: post, Path: "/webhooks/:id/rotate", Perm: web.PermWebhooksManage, Handler: h.rotateWebhook},
		{Method: post, Path: "/webhooks/:id/test", Perm: web.PermWebhooksManage, Handler: h.testWebhook},
		{Method: post, Path: "/webhooks/:id/resend", Perm: web.PermWebhooksManage, Handler: h.resendWebhooks},

		{Method: get, Path: "/events", Perm: web.PermEventsRead, Handler: h.events},

		// The events of an object, for its page, with the permission that shows the object, once
		// the id is found as the kind the path names.
		{Method: get, Path: "/users/:id/events", Perm: web.PermUsersRead, Handler: h.objectEvents(found(h.payouts.GetUser))},
		{Method: get, Path: "/transfers/:id/events", Perm: web.PermTransfersRead, Handler: h.objectEvents(found(h.payouts.GetTransfer))},
		{Method: get, Path: "/payout-links/:id/events", Perm: web.PermLinksRead, Handler: h.objectEvents(found(h.payouts.GetPayoutLink))},
		{Method: get, Path: "/flows/:id/events", Perm: web.PermFlowsRead, Handler: h.objectEvents(found(h.payouts.GetFlow))},
	}
}
