package payouts

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
	Username            *string    `json:"username"`
	Status              UserStatus `json:"status"`
	Verified            bool       `json:"verified"`
	DefaultPayoutMethod *Platform  `json:"default_payout_method"`
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
