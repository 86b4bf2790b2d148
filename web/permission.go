package web

import "github.com/disburse/disburse/internal/dashstore"

// Permission names what a route lets an operator do. Every route names one; a route without one
// does not register (deny by default).
type Permission string

const (
	// PermPublic is for the few routes anyone may open, signed in or not: sign-in and assets.
	PermPublic Permission = "public"
	// PermSignedIn is for routes every signed-in operator may use, whatever the role.
	PermSignedIn Permission = "signed-in"

	PermUsersRead       Permission = "users.read"       // find and look at payees
	PermUsersWrite      Permission = "users.write"      // create, delete, verify; payout methods; tax forms
	PermMoneyMove       Permission = "money.move"       // transfers to and from users, deposits, payouts
	PermAppRead         Permission = "app.read"         // the app's wallet and deposits
	PermTransfersRead   Permission = "transfers.read"   // transfer and transaction histories
	PermLinksRead       Permission = "links.read"       // payout links
	PermLinksWrite      Permission = "links.write"      // issue payout links
	PermLinksCancel     Permission = "links.cancel"     // cancel payout links
	PermFlowsRead       Permission = "flows.read"       // hosted flows
	PermFlowsWrite      Permission = "flows.write"      // create hosted flows
	PermExport          Permission = "export"           // CSV exports
	PermAuditRead       Permission = "audit.read"       // the audit log
	PermOperatorsManage Permission = "operators.manage" // add, change role, disable, reset operators
	PermWebhooksRead    Permission = "webhooks.read"    // see webhook endpoints and their delivery attempts, never secrets
	PermWebhooksManage  Permission = "webhooks.manage"  // add, enable, disable, rotate, test, resend
	PermEventsRead      Permission = "events.read"      // the app's events, across every object
	// PermReconciliationRead reads a day's payouts matched against the provider's records.
	PermReconciliationRead Permission = "reconciliation.read"
	// PermTaxForms generates, previews and downloads the year-end 1099-NEC forms and the IRS
	// file, and asks payees for their W-9: the finance manager's year-end work.
	PermTaxForms Permission = "tax.forms"
	// PermAPIKeys lists, makes and revokes the app's API keys: admins only, as a key moves the
	// app's money.
	PermAPIKeys Permission = "api_keys"
)

// rolePermissions is the whole access policy. Admins may do everything; other roles only what
// is listed here.
var rolePermissions = map[dashstore.Role][]Permission{
	dashstore.RoleOperations: {PermUsersRead, PermUsersWrite, PermMoneyMove, PermAppRead, PermTransfersRead,
		PermLinksRead, PermLinksWrite, PermLinksCancel, PermFlowsRead, PermFlowsWrite, PermWebhooksRead, PermWebhooksManage,
		PermEventsRead},
	dashstore.RoleSupport: {PermUsersRead, PermLinksRead, PermLinksCancel},
	dashstore.RoleManager: {PermUsersRead, PermAppRead, PermTransfersRead, PermLinksRead, PermFlowsRead,
		PermExport, PermAuditRead, PermWebhooksRead, PermEventsRead, PermReconciliationRead, PermTaxForms},
}

var knownPermissions = map[Permission]bool{
	PermPublic: true, PermSignedIn: true, PermUsersRead: true, PermUsersWrite: true, PermMoneyMove: true,
	PermAppRead: true, PermTransfersRead: true, PermLinksRead: true, PermLinksWrite: true,
	PermLinksCancel: true, PermFlowsRead: true, PermFlowsWrite: true, PermExport: true,
	PermAuditRead: true, PermOperatorsManage: true, PermWebhooksRead: true, PermWebhooksManage: true,
	PermEventsRead: true, PermReconciliationRead: true, PermTaxForms: true, PermAPIKeys: true,
}

// Can reports whether an operator with role may use a route that needs p.
func Can(role dashstore.Role, p Permission) bool {
	if !role.Valid() {
		return false
	}
	if p == PermPublic || p == PermSignedIn || role == dashstore.RoleAdmin {
		return true
	}
	for _, granted := range rolePermissions[role] {
		if granted == p {
			return true
		}
	}
	return false
}
