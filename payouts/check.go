package payouts

// Checks shared by the requests' Validate methods: each records a problem with one field.

// CheckAmount records a problem with an amount in cents: zero, out of range, or not positive
// where signed is false.
func CheckAmount(p Problems, amount int64, signed bool) {
	switch {
	case amount == 0 && signed:
		p.Add("amount", "must not be zero")
	case amount <= 0 && !signed:
		p.Add("amount", "must be greater than zero")
	case amount > int64(MaxAmount) || amount < -int64(MaxAmount):
		p.Add("amount", "must be at most 1000000000000 cents")
	}
}

// CheckID records a problem with an id field: missing when required, or not an id.
func CheckID(p Problems, field, id string, required bool) {
	switch {
	case id == "" && required:
		p.Add(field, "is required")
	case id != "" && !ValidID(id):
		p.Add(field, "is not a valid id")
	}
}

// CheckKey records a problem with an idempotency key that is not a UUID.
func CheckKey(p Problems, key string) {
	if key != "" && !ValidID(key) {
		p.Add("idempotency_key", "must be a UUID")
	}
}
