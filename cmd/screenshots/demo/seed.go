package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// Seeded names one object of each kind, for the detail pages.
type Seeded struct {
	UserID        string
	TransferID    string
	TransactionID int64
	LinkID        string
	LinkURL       string // the payee's claim page
	FlowID        string
	WebhookID     string
	OperatorID    string
	BulkJobID     string // a bulk payout file checked and waiting to be confirmed
	ApprovalID    string // a payout above the approval threshold, waiting
}

// people are the demo's payees: names from many places, accents and all.
var people = [][2]string{
	{"Zoë", "Ångström"}, {"José", "Muñoz"}, {"François", "Lefèvre"}, {"Søren", "Kierkegård"},
	{"Mónica", "Pérez"}, {"Jürgen", "Großmann"}, {"Ana", "Gonçalves"}, {"Björn", "Öberg"},
	{"Chloé", "Dubois"}, {"Nuño", "Álvarez"}, {"Amélie", "Poulain"}, {"Łucja", "Wiśniewska"},
	{"Ingrid", "Bergström"}, {"Raphaël", "Nguyễn"}, {"Aoife", "O'Brien"}, {"Dmitri", "Volkov"},
	{"Priya", "Raman"}, {"Kwame", "Mensah"}, {"Lucía", "Fernández"}, {"Mateo", "Rossi"},
	{"Hana", "Kobayashi"}, {"Émile", "Durand"}, {"Sinéad", "Kelly"}, {"Tomás", "Ibáñez"},
}

// memos are what the transfers were for.
var memos = []string{"Weekly deliveries", "Tips, week 12", "Mileage refund", "Bonus: 5-star rating", "Referral reward"}

// transfers is how many app-to-user transfers the demo makes: a few pages of them.
const transfers = 300

// seed fills the service and the dashboard with a realistic demo data set.
func seed(ctx context.Context, api *client.Client, appID string, store *dashstore.Store, hosted string) (Seeded, error) {
	var s Seeded
	admin, err := addOperator(ctx, store, "Inés García", AdminEmail, dashstore.RoleAdmin)
	if err != nil {
		return s, check("operators", err)
	}
	ops, err1 := addOperator(ctx, store, "Øystein Berg", "oystein.berg@example.com", dashstore.RoleOperations)
	_, err2 := addOperator(ctx, store, "Małgorzata Nowak", "malgorzata.nowak@example.com", dashstore.RoleManager)
	if err := check("operators", err1, err2); err != nil {
		return s, err
	}
	s.OperatorID = ops.ID
	if _, err := api.Deposit(ctx, appID, payouts.DepositRequest{Amount: 2_500_000_00}); err != nil {
		return s, check("deposit", err)
	}

	users := make([]*payouts.User, len(people))
	for i, p := range people {
		email := slug(p[0], p[1]) + "@example.com"
		u, err := api.CreateUser(ctx, payouts.CreateUserRequest{FirstName: p[0], LastName: p[1], Email: email,
			CountryCode: "1", PhoneNumber: fmt.Sprintf("41555501%02d", i)})
		if err != nil {
			return s, check("user "+email, err)
		}
		_, err = api.AddPayoutMethod(ctx, u.ID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformPayPal, Email: email, IsDefault: true})
		if err != nil {
			return s, check("payout method", err)
		}
		users[i] = u
		err = store.AddAudit(ctx, &dashstore.AuditEntry{Created: u.Created.Time, OperatorID: ops.ID, OperatorEmail: ops.Email, Action: "user.create",
			ObjectType: "user", ObjectID: u.ID, Detail: u.Name() + " <" + u.Email + ">", IP: "192.0.2.10"})
		if err != nil {
			return s, check("audit", err)
		}
	}
	s.UserID = users[0].ID
	// A receiver paused by the team, so its page shows an endpoint without the demo trying to
	// reach a host on the internet.
	paused := false
	ep, err := api.CreateWebhookEndpoint(ctx, payouts.CreateWebhookEndpointRequest{URL: "https://hooks.example.com/disburse",
		Description: "Accounting sync", EventTypes: []payouts.EventType{payouts.EventPayoutCompleted, payouts.EventPayoutFailed}, Enabled: &paused})
	if err != nil {
		return s, check("webhook endpoint", err)
	}
	s.WebhookID = ep.ID
	if _, err := api.AddPayoutMethod(ctx, s.UserID, payouts.AddPayoutMethodRequest{Platform: payouts.PlatformACH,
		RoutingNumber: "021000021", AccountNumber: "123456789", AccountType: payouts.AccountChecking}); err != nil {
		return s, check("ach method", err)
	}

	for i := range transfers {
		u := users[i%len(users)]
		cents := int64(5_00 + (i*7919)%45_000)
		t, err := api.CreateTransfer(ctx, payouts.CreateTransferRequest{UserID: u.ID, Amount: -cents, TaxExempt: true,
			Metadata: payouts.Metadata(`{"memo": "` + memos[i%len(memos)] + `"}`)})
		if err != nil {
			return s, check("transfer "+strconv.Itoa(i), err)
		}
		s.TransferID = t.ID
	}
	// Some payees cash out; the sandbox holds a $13.13 payout for review.
	for i, u := range users[:8] {
		amount := int64(50_00 + i*1_25)
		if i == 7 {
			amount = 13_13
		}
		t, err := api.CreatePayout(ctx, payouts.CreatePayoutRequest{UserID: u.ID, Amount: amount, Platform: payouts.PlatformDefault, TaxExempt: true})
		if err != nil {
			return s, check("payout", err)
		}
		s.TransferID = t.ID
	}
	lines, err := api.ListTransactions(ctx, payouts.Page{Limit: 1}, payouts.TransactionFilter{})
	if err != nil || len(lines.Data) == 0 {
		return s, check("transactions", err, fmt.Errorf("no transactions"))
	}
	s.TransactionID = lines.Data[0].ID

	if err := seedLinks(ctx, api, &s); err != nil {
		return s, err
	}
	flow, err := api.CreateFlow(ctx, payouts.CreateFlowRequest{UserID: users[1].ID,
		Steps: []payouts.Step{{Name: payouts.StepBackgroundCheck}, {Name: payouts.StepManagePayouts}}})
	if err != nil {
		return s, check("flow", err)
	}
	s.FlowID = flow.ID
	bulk := dashstore.BulkJob{AppID: appID, FileHash: strings.Repeat("0", 64), FileName: "weekly-tips.csv",
		OperatorID: ops.ID, Status: dashstore.BulkPreviewed, Created: time.Now()}
	rows := []dashstore.BulkRow{{Row: 4, UserRef: "nobody@example.com", Amount: 12_00, Method: "wallet", Problem: "No user nobody@example.com."}}
	for i, u := range users[2:5] {
		rows = append(rows, dashstore.BulkRow{Row: i + 1, UserRef: u.Email, UserID: u.ID, Amount: int64(20_00 + i*250), Memo: memos[1], Method: "wallet"})
	}
	if _, err := store.CreateBulkJob(ctx, &bulk, rows); err != nil {
		return s, check("bulk payout", err)
	}
	s.BulkJobID = bulk.ID
	if err := seedApprovals(ctx, api, store, ops, users[2], &s); err != nil {
		return s, err
	}
	return s, check("audit", store.AddAudit(ctx, &dashstore.AuditEntry{Created: time.Now(), OperatorID: admin.ID, OperatorEmail: admin.Email,
		Action: "operator.create", ObjectType: "operator", ObjectID: ops.ID, Detail: ops.Email, IP: "192.0.2.10"}))
}

// seedApprovals holds a payout an operator asked for above the approval threshold, and asks for
// one through the API: the approvals queue's two sources.
func seedApprovals(ctx context.Context, api *client.Client, store *dashstore.Store, maker dashstore.Operator, u *payouts.User, s *Seeded) error {
	key := uuid.NewString()
	req, err := json.Marshal(payouts.CreatePayoutRequest{UserID: u.ID, Amount: 1250_00, Platform: payouts.PlatformDefault,
		IdempotencyKey: key})
	if err != nil {
		return err
	}
	a := dashstore.Approval{Kind: "payout", Request: string(req), IdempotencyKey: key, Amount: 1250_00, UserID: u.ID,
		PayeeName: u.Name(), PayeeEmail: u.Email, Method: "Default method", MakerID: maker.ID, MakerEmail: maker.Email}
	if _, err := store.CreateApproval(ctx, &a, time.Now()); err != nil {
		return check("approval", err)
	}
	s.ApprovalID = a.ID
	_, err = api.CreatePayoutRequest(ctx, payouts.CreatePayoutRequestRequest{Amount: 80_00, UserID: u.ID, Memo: "Conference travel"})
	return check("payout request", err)
}

// seedLinks issues payout links delivered each way, and cancels one.
func seedLinks(ctx context.Context, api *client.Client, s *Seeded) error {
	links := []payouts.CreatePayoutLinkRequest{
		{Amount: 120_00, Memo: "Signing bonus", Payee: &payouts.Payee{FirstName: "Åsa", LastName: "Lindqvist", Email: "asa.lindqvist@example.com"}},
		{Amount: 75_50, Memo: "Event staffing", Payee: &payouts.Payee{FirstName: "Joaquín", LastName: "Sáenz", Email: "joaquin.saenz@example.com"},
			Delivery: &payouts.Delivery{Method: payouts.DeliveryEmail, Email: "joaquin.saenz@example.com"}},
		{Amount: 42_00, Memo: "Survey reward", Payee: &payouts.Payee{FirstName: "Noémie", LastName: "Girard", CountryCode: "1", PhoneNumber: "4155550199"},
			Delivery: &payouts.Delivery{Method: payouts.DeliverySMS, CountryCode: "1", PhoneNumber: "4155550199"}},
		{Amount: 300_00, Memo: "Relocation", Payee: &payouts.Payee{FirstName: "Henrik", LastName: "Dahl", Email: "henrik.dahl@example.com"}},
	}
	for i, req := range links {
		l, err := api.CreatePayoutLink(ctx, req)
		if err != nil {
			return check("payout link", err)
		}
		if i == len(links)-1 {
			if _, err := api.CancelPayoutLink(ctx, l.ID); err != nil {
				return check("cancel link", err)
			}
			continue
		}
		s.LinkID, s.LinkURL = l.ID, l.Link
	}
	return nil
}
