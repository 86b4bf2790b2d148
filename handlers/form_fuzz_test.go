package handlers

import (
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/hosted"
)

// FuzzAmountAndPhoneForm posts a form as a browser would and reads it as the dashboard does:
// an amount is either refused with a message on its field or the number of cents typed, reading
// back the same (which amounts may be sent is the service's rule, answered on the field); a phone number comes back exactly as typed, and its masked
// form never shows more than the last four digits. Nothing panics.
func FuzzAmountAndPhoneForm(f *testing.F) {
	for _, s := range [][2]string{{"12.34", "4155550100"}, {"$1,000", "+1 555"}, {"0", ""}, {"-1", "12"}, {"1e3", "٣٤٥٦٧"}, {"10000000000.01", "123456789012345"}} {
		f.Add(s[0], s[1])
	}
	app := fiber.New()
	app.Post("/", func(c *fiber.Ctx) error {
		form := formOf(c, "amount", "phone_number")
		if m, ok := amountOf(&form, "amount"); ok {
			c.Set("X-Cents", m.Decimal())
		} else if form.Error("amount") == "" {
			return c.SendStatus(fiber.StatusInternalServerError)
		}
		return c.SendString(form.Value("phone_number"))
	})
	f.Fuzz(func(t *testing.T, amount, phone string) {
		body := url.Values{"amount": {amount}, "phone_number": {phone}}.Encode()
		req := httptest.NewRequest(fiber.MethodPost, "/", strings.NewReader(body))
		req.Header.Set(fiber.HeaderContentType, fiber.MIMEApplicationForm)
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != fiber.StatusOK {
			t.Fatalf("amount %q: refused without a message on the field", amount)
		}
		if cents := res.Header.Get("X-Cents"); cents != "" {
			m, err := payouts.ParseDollars(cents)
			if typed, _ := payouts.ParseDollars(amount); err != nil || m != typed {
				t.Fatalf("amount %q accepted as %s (%d, %v)", amount, cents, m, err)
			}
		}
		got, err := io.ReadAll(res.Body)
		if err != nil || string(got) != phone {
			t.Fatalf("phone %q came back as %q (%v)", phone, got, err)
		}
		if _, err := payouts.ParsePhone("1", phone); err == nil && payouts.AllDigits(phone) {
			masked := hosted.MaskPhone(payouts.Phone{CountryCode: "1", PhoneNumber: phone})
			if strings.Contains(masked, phone) || !strings.HasSuffix(masked, phone[len(phone)-4:]) {
				t.Fatalf("MaskPhone(%q) = %q, want only the last four digits", phone, masked)
			}
		}
	})
}
