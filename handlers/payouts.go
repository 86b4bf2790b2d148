package handlers

import (
	"context"

	"disburse/payouts"
)

// Payouts is what the dashboard needs of the Payout Service: the methods of disburse/client it
// calls. Declared here, by its consumer, so handler tests can run against the real service
// through the real client.
type Payouts interface {
	ListUsers(ctx context.Context, page payouts.Page, filter payouts.UserFilter) (*payouts.List[payouts.User], error)
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
	GetApp(ctx context.Context, appID string) (*payouts.App, error)
	Deposit(ctx context.Context, appID string, req payouts.DepositRequest) (*payouts.Transfer, error)
}
