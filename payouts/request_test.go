package payouts

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

const testID = "00000000-0000-4000-8000-000000000000"

// validateCase is one request's Validate and what it must answer: no error when fields is nil,
// otherwise code and exactly these fields.
type validateCase struct {
	name   string
	err    error
	code   string
	fields []string
}

func runValidateCases(t *testing.T, tests []validateCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fields == nil {
				if tc.err != nil {
					t.Fatalf("Validate = %v, want nil", tc.err)
				}
				return
			}
			var e *Error
			if !errors.As(tc.err, &e) {
				t.Fatalf("Validate = %v, want an *Error", tc.err)
			}
			code := tc.code
			if code == "" {
				code = EInvalidInput
			}
			got := slices.Sorted(maps.Keys(e.Fields))
			if e.Code != code || !slices.Equal(got, slices.Sorted(slices.Values(tc.fields))) {
				t.Fatalf("Validate = %s %v, want %s %v", e.Code, e.Fields, code, tc.fields)
			}
		})
	}
}

func TestCreateUserRequestValidate(t *testing.T) {
	ok := CreateUserRequest{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", CountryCode: "1", PhoneNumber: "4155551234"}
	with := func(f func(*CreateUserRequest)) error {
		r := ok
		f(&r)
		return r.Validate()
	}
	runValidateCases(t, []validateCase{
		{"valid", ok.Validate(), "", nil},
		{"normalized", CreateUserRequest{FirstName: " Ada ", LastName: "L", Email: " a@b.co ", CountryCode: "+1", PhoneNumber: "4155551234"}.Normalize().Validate(), "", nil},
		{"no first name", with(func(r *CreateUserRequest) { r.FirstName = "" }), "", []string{"first_name"}},
		{"long last name", with(func(r *CreateUserRequest) { r.LastName = strings.Repeat("x", 101) }), "", []string{"last_name"}},
		{"bad email", with(func(r *CreateUserRequest) { r.Email = "nope" }), EInvalidEmail, []string{"email"}},
		{"no email", with(func(r *CreateUserRequest) { r.Email = "" }), "", []string{"email"}},
		{"bad phone", with(func(r *CreateUserRequest) { r.PhoneNumber = "12" }), EInvalidPhone, []string{"phone_number"}},
		{"bad country code", with(func(r *CreateUserRequest) { r.CountryCode = "1234" }), EInvalidPhone, []string{"country_code"}},
		{"bad username", with(func(r *CreateUserRequest) { r.Username = "a b" }), EInvalidUsername, []string{"username"}},
		{"bad metadata", with(func(r *CreateUserRequest) { r.Metadata = Metadata("[1]") }), "", []string{"metadata"}},
		{"several", CreateUserRequest{Email: "nope", Username: "a b"}.Validate(), "",
			[]string{"first_name", "last_name", "email", "country_code", "phone_number", "username"}},
	})
}

func TestUserRequestsValidate(t *testing.T) {
	bad := Platform("bitcoin")
	runValidateCases(t, []validateCase{
		{"update empty platform", UpdateUserRequest{DefaultPayoutMethod: new(Platform)}.Validate(), "", []string{"default_payout_method"}},
		{"update empty", UpdateUserRequest{}.Validate(), "", nil},
		{"update several", UpdateUserRequest{DefaultPayoutMethod: &bad, Metadata: Metadata("1")}.Validate(), "",
			[]string{"default_payout_method", "metadata"}},
		{"verify valid", VerifyUserRequest{Token: " 123456 "}.Validate(), "", nil},
		{"verify short", VerifyUserRequest{Token: "12345 "}.Validate(), "", []string{"token"}},
	})
}

func TestMoneyRequestsValidate(t *testing.T) {
	runValidateCases(t, []validateCase{
		{"transfer valid", CreateTransferRequest{UserID: testID, Amount: -5}.Validate(), "", nil},
		{"transfer zero", CreateTransferRequest{UserID: testID}.Validate(), "", []string{"amount"}},
		{"transfer too large", CreateTransferRequest{UserID: testID, Amount: -int64(MaxAmount) - 1}.Validate(), "", []string{"amount"}},
		{"transfer several", CreateTransferRequest{UserID: "x", Metadata: Metadata("1")}.Validate(), "",
			[]string{"user_id", "amount", "metadata"}},
		{"deposit valid", DepositRequest{Amount: 1}.Validate(), "", nil},
		{"deposit negative", DepositRequest{Amount: -1}.Validate(), "", []string{"amount"}},
		{"deposit several", DepositRequest{Metadata: Metadata("1")}.Validate(), "", []string{"amount", "metadata"}},
		{"payout valid", CreatePayoutRequest{UserID: testID, Amount: 1, Platform: PlatformBankTransfer, AccountID: testID}.Validate(), "", nil},
		{"payout default", CreatePayoutRequest{UserID: testID, Amount: 1, Platform: PlatformDefault}.Validate(), "", nil},
		{"payout no platform", CreatePayoutRequest{UserID: testID, Amount: 1}.Validate(), "", []string{"platform"}},
		{"payout unknown platform", CreatePayoutRequest{UserID: testID, Amount: 1, Platform: "wire"}.Validate(), "", []string{"platform"}},
		{"payout ach without account", CreatePayoutRequest{UserID: testID, Amount: 1, Platform: PlatformACH}.Validate(), "", []string{"account_id"}},
		{"payout several", CreatePayoutRequest{Platform: PlatformPayPal, AccountID: "x", PayoutFeeParty: "nobody"}.Validate(), "",
			[]string{"user_id", "amount", "account_id", "payout_fee_party"}},
		{"review valid", ReviewTransferRequest{Action: ReviewReject, Reason: "fraud"}.Validate(), "", nil},
		{"review long reason", ReviewTransferRequest{Action: ReviewRelease, Reason: strings.Repeat("x", 501)}.Validate(), "", []string{"reason"}},
		{"review several", ReviewTransferRequest{Action: "hold", Reason: strings.Repeat("x", 501)}.Validate(), "", []string{"action", "reason"}},
	})
}

func TestPayoutLinkAndFlowRequestsValidate(t *testing.T) {
	redirect := Step{Name: StepRedirect, RedirectURL: "https://example.com"}
	runValidateCases(t, []validateCase{
		{"link valid", CreatePayoutLinkRequest{Amount: 1, Payee: &Payee{PhoneNumber: " 415 555 1234 "},
			Delivery: &Delivery{Method: DeliverySMS}, AdditionalSteps: []Step{redirect}}.Validate(), "", nil},
		{"link bad email", CreatePayoutLinkRequest{Amount: 1, Payee: &Payee{Email: "nope"}}.Validate(), "", []string{"payee.email"}},
		{"link bad delivery", CreatePayoutLinkRequest{Amount: 1, Delivery: &Delivery{Method: "fax"}}.Validate(), "", []string{"delivery.method"}},
		{"link bad step", CreatePayoutLinkRequest{Amount: 1, AdditionalSteps: []Step{{Name: "dance"}}}.Validate(), "", []string{"additional_steps"}},
		{"link several", CreatePayoutLinkRequest{UserID: "x", Payee: &Payee{PhoneNumber: "1", CountryCode: "1",
			FirstName: strings.Repeat("x", 101)}, Memo: strings.Repeat("x", 501), PayoutFeeParty: "nobody"}.Validate(), "",
			[]string{"amount", "user_id", "payee.phone_number", "payee.first_name", "memo", "payout_fee_party"}},
		{"link bad country code", CreatePayoutLinkRequest{Amount: 1, Payee: &Payee{PhoneNumber: "4155551234", CountryCode: "12345"}}.Validate(),
			"", []string{"payee.country_code"}},
		{"flow valid", CreateFlowRequest{Steps: []Step{{Name: StepPayout}, redirect}}.Validate(), "", nil},
		{"flow no steps", CreateFlowRequest{}.Validate(), "", []string{"steps"}},
		{"flow step twice", CreateFlowRequest{Steps: []Step{{Name: StepPayout}, {Name: StepPayout}}}.Validate(), "", []string{"steps"}},
		{"flow redirect without url", CreateFlowRequest{Steps: []Step{{Name: StepRedirect}}}.Validate(), "", []string{"steps"}},
		{"flow several", CreateFlowRequest{UserID: "x", Metadata: Metadata("1")}.Validate(), "", []string{"steps", "user_id", "metadata"}},
	})
}

func TestPayoutMethodAndComplianceRequestsValidate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w9 := W9{EntityType: EntityIndividual, FirstName: "A", LastName: "B", DateOfBirth: "1990-01-01", TIN: "123-45-6789",
		Address: Address{Line1: "1 Main", City: "X", State: "NY", Country: "US", Postcode: "10001"}}
	w8 := W8BEN{Name: "A B", CitizenshipCountry: "FR", DateOfBirth: "1990-01-01", TIN: "912701234", Address: w9.Address,
		Signature: Signature{Consent: true, Name: "A B", Email: "a@b.co"}}
	badW9 := w9
	badW9.EntityType, badW9.TIN, badW9.DateOfBirth, badW9.Address.City = EntityBusiness, "12", "2027-01-01", " "
	runValidateCases(t, []validateCase{
		{"paypal valid", AddPayoutMethodRequest{Platform: PlatformPayPal, Email: " a@b.co "}.Validate(), "", nil},
		{"venmo valid", AddPayoutMethodRequest{Platform: PlatformVenmo, Handle: "@handle1"}.Validate(), "", nil},
		{"ach valid", AddPayoutMethodRequest{Platform: PlatformACH, RoutingNumber: "011000015", AccountNumber: "12345678",
			AccountType: AccountChecking}.Validate(), "", nil},
		{"no platform", AddPayoutMethodRequest{}.Validate(), "", []string{"platform"}},
		{"paypal no email", AddPayoutMethodRequest{Platform: PlatformPayPal}.Validate(), "", []string{"email"}},
		{"cash app several", AddPayoutMethodRequest{Platform: PlatformCashApp, CashTag: "nope", RoutingNumber: "123456789"}.Validate(), "",
			[]string{"cash_tag", "routing_number", "account_number"}},
		{"ach several", AddPayoutMethodRequest{Platform: PlatformACH, AccountType: "cash"}.Validate(), "",
			[]string{"routing_number", "account_number", "account_type"}},
		{"w9 valid", ComplianceRequest{W9: &w9}.Validate(now), "", nil},
		{"w8ben valid", ComplianceRequest{W8BEN: &w8}.Validate(now), "", nil},
		{"no form", ComplianceRequest{}.Validate(now), "", []string{"w9"}},
		{"two forms", ComplianceRequest{W9: &w9, W8BEN: &w8}.Validate(now), "", []string{"w8ben"}},
		{"w9 several", ComplianceRequest{W9: &badW9}.Validate(now), "",
			[]string{"w9.business_name", "w9.tin", "w9.date_of_birth", "w9.address.city"}},
		{"w8ben several", ComplianceRequest{W8BEN: &W8BEN{DateOfBirth: "1990-13-01", Address: w9.Address}}.Validate(now), "",
			[]string{"w8ben.name", "w8ben.citizenship_country", "w8ben.date_of_birth", "w8ben.tin",
				"w8ben.signature.consent", "w8ben.signature.name", "w8ben.signature.email"}},
	})
}
