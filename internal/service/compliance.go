package service

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/disburse/disburse/payouts"
)

// SubmitCompliance records a W-9 or W-8BEN for the user and sets the compliance flags. The form,
// TIN included, is stored sealed; only the TIN's last four digits are kept in clear.
func (s *Service) SubmitCompliance(ctx context.Context, appID, userID string, req payouts.ComplianceRequest) error {
	kind, tin, err := s.validateCompliance(&req)
	if err != nil {
		return err
	}
	form, err := json.Marshal(req)
	if err != nil {
		return err
	}
	rec := &TaxFormRecord{AppID: appID, UserID: userID, Kind: kind,
		Sealed: s.seal(form, "taxform:"+userID), TINLast4: payouts.Last4(tin), Created: s.now()}
	return s.store.InTx(ctx, func(q Queries) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if err := q.SaveTaxForm(ctx, rec); err != nil {
			return err
		}
		c := &user.Compliance
		c.TaxIDCollected, c.AddressCollected, c.DateOfBirthCollected = true, true, true
		if kind == "w9" {
			c.Collected1099 = true
		} else {
			c.W8BENCollected = true
		}
		c.MustCollect1099 = false
		return q.UpdateUser(ctx, user)
	})
}

func (s *Service) validateCompliance(req *payouts.ComplianceRequest) (kind, tin string, err error) {
	p := payouts.Problems{}
	switch {
	case req.W9 == nil && req.W8BEN == nil:
		return "", "", payouts.FieldError("w9", "give a w9 or a w8ben form")
	case req.W9 != nil && req.W8BEN != nil:
		return "", "", payouts.FieldError("w8ben", "give one form, not both")
	case req.W9 != nil:
		w := req.W9
		w.TIN = strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(w.TIN))
		switch w.EntityType {
		case payouts.EntityIndividual:
		case payouts.EntityBusiness:
			required(p, "w9.business_name", w.BusinessName)
		case "":
			p.Add("w9.entity_type", "is required")
		default:
			p.Add("w9.entity_type", "must be individual or business")
		}
		required(p, "w9.first_name", w.FirstName)
		required(p, "w9.last_name", w.LastName)
		s.birthDate(p, "w9.date_of_birth", w.DateOfBirth)
		switch {
		case w.TIN == "":
			p.Add("w9.tin", "is required")
		case len(w.TIN) != 9 || !payouts.AllDigits(w.TIN):
			p.Add("w9.tin", "must be 9 digits")
		}
		validateAddress(p, "w9.address", w.Address)
		return "w9", w.TIN, p.Err()
	default:
		w := req.W8BEN
		required(p, "w8ben.name", w.Name)
		required(p, "w8ben.citizenship_country", w.CitizenshipCountry)
		s.birthDate(p, "w8ben.date_of_birth", w.DateOfBirth)
		required(p, "w8ben.foreign_tax_id", w.ForeignTaxID)
		validateAddress(p, "w8ben.address", w.Address)
		if !w.Signature.Consent {
			p.Add("w8ben.signature.consent", "must be true: the form is signed under penalty of perjury")
		}
		required(p, "w8ben.signature.name", w.Signature.Name)
		if !payouts.ValidEmail(strings.TrimSpace(w.Signature.Email)) {
			p.Add("w8ben.signature.email", "is not a valid email address")
		}
		return "w8ben", w.ForeignTaxID, p.Err()
	}
}

func required(p payouts.Problems, field, v string) {
	switch v = strings.TrimSpace(v); {
	case v == "":
		p.Add(field, "is required")
	case len(v) > 200:
		p.Add(field, "must be at most 200 characters")
	}
}

func (s *Service) birthDate(p payouts.Problems, field, v string) {
	switch {
	case v == "":
		p.Add(field, "is required")
	case !payouts.ValidDate(v):
		p.Add(field, "must be a date written YYYY-MM-DD")
	default:
		d, _ := time.Parse("2006-01-02", v)
		if !d.Before(s.now()) || d.Year() < 1900 {
			p.Add(field, "must be a past date")
		}
	}
}

func validateAddress(p payouts.Problems, prefix string, a payouts.Address) {
	required(p, prefix+".line_1", a.Line1)
	required(p, prefix+".city", a.City)
	required(p, prefix+".state", a.State)
	required(p, prefix+".country", a.Country)
	required(p, prefix+".postcode", a.Postcode)
}

// threshold1099 is the payments in year that require a W-9: the entry for that year, or for the
// latest earlier year listed.
func (s *Service) threshold1099(year int) payouts.Money {
	years := make([]int, 0, len(s.cfg.Thresholds1099))
	for y := range s.cfg.Thresholds1099 {
		years = append(years, y)
	}
	sort.Ints(years)
	t := s.cfg.Thresholds1099[years[0]]
	for _, y := range years {
		if y <= year {
			t = s.cfg.Thresholds1099[y]
		}
	}
	return t
}

// recordPayment counts a payment to the user towards this year's 1099 threshold and, when it is
// reached without a tax form on file, marks that a W-9 must be collected before more payouts.
func (s *Service) recordPayment(ctx context.Context, q Queries, user *UserRecord, amount payouts.Money) error {
	year := s.now().Year()
	total, err := q.AddYearlyPayments(ctx, user.AppID, user.ID, year, amount)
	if err != nil {
		return err
	}
	c := &user.Compliance
	if total >= s.threshold1099(year) && !c.Collected1099 && !c.W8BENCollected && !c.MustCollect1099 {
		c.MustCollect1099 = true
		return q.UpdateUser(ctx, user)
	}
	return nil
}
