package payouts

import "strings"

// UserStatus is where a payee stands.
type UserStatus string

const (
	UserUnverified UserStatus = "unverified"
	UserVerified   UserStatus = "verified"
	UserInReview   UserStatus = "in_review"
	UserDisabled   UserStatus = "disabled"
)

// Valid reports whether s is a known user status.
func (s UserStatus) Valid() bool {
	switch s {
	case UserUnverified, UserVerified, UserInReview, UserDisabled:
		return true
	}
	return false
}

// Phone is a phone number split as the API splits it: country code digits without "+", and the
// national number's digits.
type Phone struct {
	CountryCode string `json:"country_code"`
	PhoneNumber string `json:"phone_number"`
}

// String formats the number as +CC NUMBER.
func (p Phone) String() string {
	if p.PhoneNumber == "" {
		return ""
	}
	return "+" + p.CountryCode + " " + p.PhoneNumber
}

// User is a payee.
type User struct {
	ID                  string     `json:"id"`
	FirstName           string     `json:"first_name"`
	LastName            string     `json:"last_name"`
	Email               string     `json:"email"`
	PhoneNumber         Phone      `json:"phone_number"`
	Username            *string    `json:"username,omitempty"`
	Status              UserStatus `json:"status"`
	Verified            bool       `json:"verified"`
	DefaultPayoutMethod *Platform  `json:"default_payout_method,omitempty"`
	Wallet              Wallet     `json:"wallet"`
	Compliance          Compliance `json:"compliance"`
	Metadata            Metadata   `json:"metadata"`
	Created             Time       `json:"created"`
}

// Name is the user's full name.
func (u User) Name() string {
	switch {
	case u.FirstName == "":
		return u.LastName
	case u.LastName == "":
		return u.FirstName
	}
	return u.FirstName + " " + u.LastName
}

// Compliance says which tax and identity information is on file.
type Compliance struct {
	TaxIDCollected       bool `json:"tax_id_collected"`
	AddressCollected     bool `json:"address_collected"`
	DateOfBirthCollected bool `json:"date_of_birth_collected"`
	MustCollect1099      bool `json:"must_collect_1099"`
	Collected1099        bool `json:"1099_collected"`
	W8BENCollected       bool `json:"w8_ben_collected"`
	Flagged              bool `json:"flagged"`
	IDVerified           bool `json:"id_verified"`
}

// OwesW9 reports whether the user was paid past the 1099 threshold this year without a tax form
// on file: such a user is paid out only after giving one.
func (c Compliance) OwesW9() bool {
	return c.MustCollect1099 && !c.Collected1099 && !c.W8BENCollected
}

// CreateUserRequest is the body of POST /v2/users.
type CreateUserRequest struct {
	FirstName   string   `json:"first_name"`
	LastName    string   `json:"last_name"`
	Email       string   `json:"email"`
	CountryCode string   `json:"country_code"`
	PhoneNumber string   `json:"phone_number"`
	Username    string   `json:"username,omitempty"`
	Metadata    Metadata `json:"metadata,omitempty"`
}

// UpdateUserRequest is the body of PATCH /v2/users/{id}. Nil fields are left as they are; a
// present metadata of null clears it.
type UpdateUserRequest struct {
	DefaultPayoutMethod *Platform `json:"default_payout_method,omitempty"`
	Metadata            Metadata  `json:"metadata,omitempty"`
}

// SendVerificationTokenRequest is the body of POST /v2/users/{id}/send-verification-token.
type SendVerificationTokenRequest struct {
	UseVoice bool `json:"use_voice,omitempty"`
}

// VerifyUserRequest is the body of POST /v2/users/{id}/verify.
type VerifyUserRequest struct {
	Token string `json:"token"`
}

// UserFilter narrows GET /v2/users.
type UserFilter struct {
	Status UserStatus // one status, or all
	Search string     // part of a name, email or phone number
}

// Normalize returns the request without the spaces people type around values, and a phone
// number that reads as one (ParsePhone) split as the API stores it: its own country's code and
// its national significant number. One that does not is left for Validate to name.
func (r CreateUserRequest) Normalize() CreateUserRequest {
	r.FirstName = strings.TrimSpace(r.FirstName)
	r.LastName = strings.TrimSpace(r.LastName)
	r.Email = strings.TrimSpace(r.Email)
	if strings.TrimSpace(r.CountryCode) != "" || strings.HasPrefix(strings.TrimSpace(r.PhoneNumber), "+") {
		r.CountryCode, r.PhoneNumber = normalizePhone(r.CountryCode, r.PhoneNumber)
	} else { // a user's country_code is required: none is read as the United States' only for a payee
		r.PhoneNumber = strings.TrimSpace(r.PhoneNumber)
	}
	r.Username = strings.TrimSpace(r.Username)
	return r
}

// Validate checks a normalized request. A request whose only problem is the email, phone or
// username answers that field's own code, as the public API does.
func (r CreateUserRequest) Validate() error {
	p := Problems{}
	for field, v := range map[string]string{"first_name": r.FirstName, "last_name": r.LastName} {
		if v == "" {
			p.Add(field, "is required")
		}
		p.maxLen(field, v, 100)
	}
	p.email("email", r.Email, true)
	if r.CountryCode == "" {
		p.Add("country_code", "is required")
	}
	p.Phone("", r.CountryCode, r.PhoneNumber, true)
	if r.Username != "" && !ValidUsername(r.Username) {
		p.Add("username", "must be 1 to 50 letters, digits or dashes")
	}
	p.metadata(r.Metadata)
	err := p.Err()
	if err == nil || len(p) != 1 {
		return err
	}
	e := err.(*Error)
	switch {
	case p["email"] != "" && r.Email != "":
		e.Code = EInvalidEmail
	case (p["phone_number"] != "" && r.PhoneNumber != "") || (p["country_code"] != "" && r.CountryCode != ""):
		e.Code = EInvalidPhone
	case p["username"] != "":
		e.Code = EInvalidUsername
	}
	return e
}

// Validate checks the metadata and the default payout method.
func (r UpdateUserRequest) Validate() error {
	p := Problems{}
	p.metadata(r.Metadata)
	if r.DefaultPayoutMethod != nil && !r.DefaultPayoutMethod.Valid() {
		p.Add("default_payout_method", "must be paypal, venmo, cash_app or ach")
	}
	return p.Err()
}

// TokenDigits is the length of a verification token.
const TokenDigits = 6

// Validate checks the token is long enough to be one we sent.
func (r VerifyUserRequest) Validate() error {
	if len(strings.TrimSpace(r.Token)) < TokenDigits {
		return FieldError("token", "must be at least 6 characters")
	}
	return nil
}
