package service

import (
	"context"
	"encoding/json"
	"sort"

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
		Sealed: s.seal(form, aadOf(SealedTaxForm, userID)), TINLast4: payouts.Last4(tin), Created: s.now()}
	return s.inTx(ctx, func(q *Tx) error {
		user, err := s.getUser(ctx, q, appID, userID)
		if err != nil {
			return err
		}
		if err := q.SaveTaxForm(ctx, rec); err != nil {
			return err
		}
		before := user.User
		c := &user.Compliance
		c.TaxIDCollected, c.AddressCollected, c.DateOfBirthCollected = true, true, true
		if kind == "w9" {
			c.Collected1099 = true
		} else {
			c.W8BENCollected = true
		}
		c.MustCollect1099 = false
		return q.updateUser(ctx, before, user)
	})
}

// TaxForm reads back the user's tax form in force, as it was filed: the W-9 or W-8BEN of the
// request, TIN included, for the app's own records.
func (s *Service) TaxForm(ctx context.Context, appID, userID string) (*payouts.ComplianceRequest, error) {
	rec, err := s.store.LatestTaxForm(ctx, appID, userID)
	if err != nil {
		return nil, err
	}
	plain, err := s.open(rec.Sealed, aadOf(SealedTaxForm, userID))
	if err != nil {
		return nil, err
	}
	var form payouts.ComplianceRequest
	return &form, json.Unmarshal(plain, &form)
}

func (s *Service) validateCompliance(req *payouts.ComplianceRequest) (kind, tin string, err error) {
	if err := req.Validate(s.now()); err != nil {
		return "", "", err
	}
	if req.W9 != nil {
		req.W9.TIN = req.W9.NormalTIN()
		return "w9", req.W9.TIN, nil
	}
	return "w8ben", req.W8BEN.TIN, nil
}

// birthDate records a problem with a date of birth, which must be before the service's now.
func (s *Service) birthDate(p payouts.Problems, field, v string) { p.BirthDate(field, v, s.now()) }

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

// countPayment counts a payment to the user towards this year's 1099 threshold in led and, when
// it is reached without a tax form on file, marks that a W-9 must be collected before more
// payouts.
func (s *Service) countPayment(ctx context.Context, led ledgerState, user *UserRecord, amount payouts.Money) error {
	year := s.now().Year()
	total, err := led.addPayment(ctx, user, year, amount)
	if err != nil {
		return err
	}
	before := user.User
	if s.reaches1099(user, year, total) {
		return led.userChanged(ctx, before, user)
	}
	return nil
}

// reaches1099 marks, when year's payments total reached the 1099 threshold without a tax form
// on file, that the user must give a W-9 before more payouts, and reports whether it did.
func (s *Service) reaches1099(user *UserRecord, year int, total payouts.Money) bool {
	c := &user.Compliance
	if total >= s.threshold1099(year) && !c.Collected1099 && !c.W8BENCollected && !c.MustCollect1099 {
		c.MustCollect1099 = true
		return true
	}
	return false
}
