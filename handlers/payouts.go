package handlers

import (
	"context"
	"iter"

	"github.com/disburse/disburse/payouts"
)

// Payouts is what the dashboard needs of the Payout Service: the methods of disburse/client it
// calls. Declared here, by its consumer, so handler tests can run against the real service
// through the real client.
type Payouts interface {
	// Extensions names what the service offers beyond the public Dots API (none for the public
	// service); pages use an extension only when it is named (public_api.go).
	Extensions(ctx context.Context) (payouts.Extensions, error)

	ListAPIKeys(ctx context.Context, appID string) (*payouts.APIKeyList, error)
	CreateAPIKey(ctx context.Context, appID string, req payouts.CreateAPIKeyRequest) (*payouts.APIKey, error)
	RevokeAPIKey(ctx context.Context, appID, keyID string) (*payouts.APIKey, error)

	ListUsers(ctx context.Context, page payouts.Page, filter payouts.UserFilter) (*payouts.List[payouts.User], error)
	AllUsers(ctx context.Context, filter payouts.UserFilter) iter.Seq2[payouts.User, error]
	GetUser(ctx context.Context, id string) (*payouts.User, error)
	CreateUser(ctx context.Context, req payouts.CreateUserRequest) (*payouts.User, error)
	DeleteUser(ctx context.Context, id string) (*payouts.User, error)
	SendVerificationToken(ctx context.Context, id string, req payouts.SendVerificationTokenRequest) error
	VerifyUser(ctx context.Context, id string, req payouts.VerifyUserRequest) error
	AddPayoutMethod(ctx context.Context, userID string, req payouts.AddPayoutMethodRequest) (*payouts.PayoutMethod, error)
	ListPayoutMethods(ctx context.Context, userID string) ([]payouts.PayoutMethod, error)
	SubmitCompliance(ctx context.Context, userID string, req payouts.ComplianceRequest) error

	CreateTransfer(ctx context.Context, req payouts.CreateTransferRequest) (*payouts.Transfer, error)
	ListTransfers(ctx context.Context, page payouts.Page, filter payouts.TransferFilter) (*payouts.List[payouts.Transfer], error)
	SummarizeTransfers(ctx context.Context, filter payouts.TransferFilter) (*payouts.Summary, error)
	AllTransfers(ctx context.Context, filter payouts.TransferFilter) iter.Seq2[payouts.Transfer, error]
	GetTransfer(ctx context.Context, id string) (*payouts.Transfer, error)
	ReviewTransfer(ctx context.Context, id string, req payouts.ReviewTransferRequest) (*payouts.Transfer, error)
	GetScreening(ctx context.Context, userID string) (*payouts.Screening, error)
	CreatePayout(ctx context.Context, req payouts.CreatePayoutRequest) (*payouts.Transfer, error)
	PreflightPayout(ctx context.Context, req payouts.CreatePayoutRequest) (*payouts.Preflight, error)
	PreflightBatch(ctx context.Context, req payouts.PreflightBatchRequest) (*payouts.PreflightBatch, error)
	PreflightPayoutLink(ctx context.Context, req payouts.CreatePayoutLinkRequest) (*payouts.Preflight, error)
	PreflightTransfer(ctx context.Context, req payouts.CreateTransferRequest) (*payouts.Preflight, error)
	PreflightPayoutRequestApproval(ctx context.Context, id string) (*payouts.Preflight, error)
	CreateTransferBatch(ctx context.Context, req payouts.CreateTransferBatchRequest) (*payouts.TransferBatch, error)
	GetTransferBatch(ctx context.Context, id string) (*payouts.TransferBatch, error)

	ListTransactions(ctx context.Context, page payouts.Page, filter payouts.TransactionFilter) (*payouts.List[payouts.Transaction], error)
	SummarizeTransactions(ctx context.Context, filter payouts.TransactionFilter) (*payouts.Summary, error)
	Statement(ctx context.Context, r payouts.StatementRequest) (*payouts.Statement, error)
	AllTransactions(ctx context.Context, filter payouts.TransactionFilter) iter.Seq2[payouts.Transaction, error]
	GetTransaction(ctx context.Context, id int64) (*payouts.Transaction, error)

	CreatePayoutLink(ctx context.Context, req payouts.CreatePayoutLinkRequest) (*payouts.PayoutLink, error)
	ListPayoutLinks(ctx context.Context, page payouts.Page, filter payouts.PayoutLinkFilter) (*payouts.List[payouts.PayoutLink], error)
	AllPayoutLinks(ctx context.Context, filter payouts.PayoutLinkFilter) iter.Seq2[payouts.PayoutLink, error]
	GetPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error)
	CancelPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error)

	ListPayoutRequests(ctx context.Context, page payouts.Page, filter payouts.PayoutRequestFilter) (*payouts.List[payouts.PayoutRequest], error)
	AllPayoutRequests(ctx context.Context, filter payouts.PayoutRequestFilter) iter.Seq2[payouts.PayoutRequest, error]
	CountPayoutRequests(ctx context.Context, filter payouts.PayoutRequestFilter) (*payouts.PayoutRequestCount, error)
	GetPayoutRequest(ctx context.Context, id string) (*payouts.PayoutRequest, error)
	ReviewPayoutRequest(ctx context.Context, id string, req payouts.ReviewPayoutRequestRequest) (*payouts.PayoutRequest, error)

	CreateFlow(ctx context.Context, req payouts.CreateFlowRequest) (*payouts.Flow, error)
	ListFlows(ctx context.Context, page payouts.Page, filter payouts.FlowFilter) (*payouts.List[payouts.Flow], error)
	AllFlows(ctx context.Context, filter payouts.FlowFilter) iter.Seq2[payouts.Flow, error]
	GetFlow(ctx context.Context, id string) (*payouts.Flow, error)

	LookUpIDs(ctx context.Context, text string) (*payouts.IDLookup, error)

	GetApp(ctx context.Context, appID string) (*payouts.App, error)
	GetAppStats(ctx context.Context, appID string, days int, zone string) (*payouts.AppStats, error)
	Deposit(ctx context.Context, appID string, req payouts.DepositRequest) (*payouts.Transfer, error)
	Rails(ctx context.Context) (*payouts.Rails, error)
	Reconcile(ctx context.Context, req payouts.ReconcileRequest) (*payouts.Reconciliation, error)

	TaxPayees(ctx context.Context, year int) ([]payouts.ReportableTotal, error)
	GenerateTaxForms(ctx context.Context, year int) (*payouts.Forms1099Run, error)
	TaxForms(ctx context.Context, year int, userID string) ([]payouts.Form1099, error)
	TaxFormPDF(ctx context.Context, formID string) ([]byte, error)
	TaxFormsZIP(ctx context.Context, year int, toMail bool) ([]byte, error)
	IRISFile(ctx context.Context, year int, corrections bool) ([]byte, error)

	SandboxMessages(ctx context.Context, page payouts.Page) (*payouts.List[payouts.SandboxMessage], error)
	UserMessages(ctx context.Context, userID string) ([]payouts.Message, error)
	ResendPayoutLink(ctx context.Context, id string) (*payouts.PayoutLink, error)
	CorrectPayoutLinkContact(ctx context.Context, id string, req payouts.CorrectPayoutLinkContactRequest) (*payouts.PayoutLink, error)

	ListEvents(ctx context.Context, page payouts.Page, filter payouts.EventFilter) (*payouts.List[payouts.Event], error)
	CreateWebhookEndpoint(ctx context.Context, req payouts.CreateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error)
	ListWebhookEndpoints(ctx context.Context) (*payouts.List[payouts.WebhookEndpoint], error)
	GetWebhookEndpoint(ctx context.Context, id string) (*payouts.WebhookEndpoint, error)
	UpdateWebhookEndpoint(ctx context.Context, id string, req payouts.UpdateWebhookEndpointRequest) (*payouts.WebhookEndpoint, error)
	RotateWebhookSecret(ctx context.Context, id string, req payouts.RotateWebhookSecretRequest) (*payouts.WebhookEndpoint, error)
	ListWebhookAttempts(ctx context.Context, endpointID, eventID string, page payouts.Page) (*payouts.List[payouts.WebhookAttempt], error)
	ResendWebhooks(ctx context.Context, endpointID string, req payouts.ResendWebhooksRequest) (int, error)
	SendTestWebhook(ctx context.Context, endpointID string) (*payouts.Event, error)
}
