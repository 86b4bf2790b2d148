// Package paths builds the dashboard's URLs, so that templates and handlers (links, forms,
// redirects) name a page the same way and none concatenates one by hand. The routes themselves
// are listed in handlers/routes.go.
package paths

import (
	"net/url"
	"strconv"

	"github.com/disburse/disburse/payouts"
)

// User is a user's page; the other user paths are its actions.
func User(id string) string { return "/users/" + url.PathEscape(id) }

func UserDelete(id string) string            { return User(id) + "/delete" }
func UserVerify(id string) string            { return User(id) + "/verify" }
func UserVerificationToken(id string) string { return User(id) + "/verification-token" }
func UserTransfers(id string) string         { return User(id) + "/transfers" } // moves money
func UserPayouts(id string) string           { return User(id) + "/payouts" }
func UserPayoutMethods(id string) string     { return User(id) + "/payout-methods" }
func RoutingNumberCheck(id string) string    { return UserPayoutMethods(id) + "/routing-number" }

// NewPayoutMethod is the form to add a payout method, on platform's tab when one is given.
func NewPayoutMethod(userID string, platform payouts.Platform) string {
	return withQuery(UserPayoutMethods(userID)+"/new", url.Values{"platform": {string(platform)}})
}

// Compliance is the tax form of a user; form picks the W-9 or the W-8BEN when given.
func Compliance(userID, form string) string {
	return withQuery(User(userID)+"/compliance", url.Values{"form": {form}})
}

// Transfers is the list of transfers narrowed by f, in the query the list reads.
func Transfers(f payouts.TransferFilter) string {
	return withQuery("/transfers", url.Values{"user": {f.UserID}, "type": {string(f.Type)}, "status": {string(f.Status)}})
}

// UserSuggestions answers a user search box's typing (?user=) with matching users.
func UserSuggestions() string { return "/users/suggest" }

func Transfer(id string) string       { return "/transfers/" + url.PathEscape(id) }
func TransferReview(id string) string { return Transfer(id) + "/review" }

// Transactions is the list of ledger lines narrowed by f.
func Transactions(f payouts.TransactionFilter) string {
	return withQuery("/transactions", url.Values{"user": {f.UserID}})
}

// Statement is the statement of userID's wallet, or of the app's when userID is empty.
func Statement(userID string) string {
	return withQuery("/statement", url.Values{"user_id": {userID}})
}

func Transaction(id int64) string { return "/transactions/" + strconv.FormatInt(id, 10) }

func PayoutLink(id string) string { return "/payout-links/" + url.PathEscape(id) }

// PayoutLinkResend sends a payout link to its payee again.
func PayoutLinkResend(id string) string { return PayoutLink(id) + "/resend" }
func PayoutLinkCancel(id string) string { return PayoutLink(id) + "/cancel" }

// PayoutLinkContact sends a payout link to a corrected payee.
func PayoutLinkContact(id string) string { return PayoutLink(id) + "/contact" }

// NewPayoutLink is the form to issue a payout link, for userID when given.
func NewPayoutLink(userID string) string {
	return withQuery("/payout-links/new", url.Values{"user": {userID}})
}

func Flow(id string) string         { return "/flows/" + url.PathEscape(id) }
func FlowProgress(id string) string { return Flow(id) + "/progress" }

func Operator(id string) string         { return "/operators/" + url.PathEscape(id) }
func OperatorRole(id string) string     { return Operator(id) + "/role" }
func OperatorEnable(id string) string   { return Operator(id) + "/enable" }
func OperatorDisable(id string) string  { return Operator(id) + "/disable" }
func OperatorPassword(id string) string { return Operator(id) + "/password" }

// Approvals lists the held requests, open and decided; Approval is one's page, whose decision
// form posts to ApprovalDecision.
func Approvals() string                 { return "/approvals" }
func Approval(id string) string         { return "/approvals/" + url.PathEscape(id) }
func ApprovalDecision(id string) string { return Approval(id) + "/decision" }

// PayoutRequest is the page of a payout request made through the API, in the approvals queue.
func PayoutRequest(id string) string       { return "/payout-requests/" + url.PathEscape(id) }
func PayoutRequestReview(id string) string { return PayoutRequest(id) + "/review" }

// Audit is the audit log narrowed by q (operator, object_type, object_id, ...).
func Audit(q url.Values) string { return withQuery("/audit", q) }

// withQuery appends the non-empty values of q to path.
func withQuery(path string, q url.Values) string {
	kept := url.Values{}
	for k, vs := range q {
		if len(vs) > 0 && vs[0] != "" {
			kept[k] = vs
		}
	}
	if len(kept) == 0 {
		return path
	}
	return path + "?" + kept.Encode()
}

// BulkNew is the form to upload a CSV of payouts; Bulk is one uploaded file's page.
func BulkNew() string                { return "/bulk" }
func Bulk(id string) string          { return "/bulk/" + url.PathEscape(id) }
func BulkConfirm(id string) string   { return Bulk(id) + "/confirm" }
func BulkCancel(id string) string    { return Bulk(id) + "/cancel" }
func BulkRepeats(id string) string   { return Bulk(id) + "/repeats" }
func BulkProgress(id string) string  { return Bulk(id) + "/progress" }
func BulkResultCSV(id string) string { return Bulk(id) + "/result.csv" }
