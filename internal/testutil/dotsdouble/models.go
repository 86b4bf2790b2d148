package dotsdouble

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// fields is a public response model: the fields it declares, each with the model of its value
// (nil: kept whole, a scalar or free metadata). A list's items, or an array's, take the model
// of the field.
type fields map[string]fields

// The public API's response models, written from its reference (the published SDKs' models):
// the double keeps these fields of an answer and drops the rest, as a Dots account would never
// send them. A business's compliance information, the verification answers and PUT
// /v2/users/{id}/compliance pass whole.
var (
	phoneNumber = fields{"country_code": nil, "phone_number": nil}
	user        = fields{"id": nil, "first_name": nil, "last_name": nil, "email": nil, "phone_number": phoneNumber,
		"wallet": {"amount": nil, "withdrawable_amount": nil, "credit_balance": nil},
		"compliance": {"tax_id_collected": nil, "address_collected": nil, "date_of_birth_collected": nil,
			"must_collect_1099": nil, "1099_collected": nil, "w8_ben_collected": nil, "flagged": nil, "id_verified": nil},
		"metadata": nil}
	app = fields{"id": nil, "name": nil, "status": nil, "metadata": nil,
		"metrics": {"wallet_balance": nil, "money_out": nil, "connected_users": nil}}
	transaction = fields{"id": nil, "amount": nil, "created": nil, "source_name": nil, "destination_name": nil,
		"type": nil, "metadata": nil}
	transfer = fields{"id": nil, "created": nil, "user_id": nil, "status": nil, "type": nil, "amount": nil,
		"external_data": {"account_id": nil, "external_id": nil, "platform": nil},
		"transactions":  transaction, "metadata": nil}
	payoutLink = fields{"id": nil, "created": nil, "link": nil, "amount": nil, "status": nil,
		"payee":      {"first_name": nil, "last_name": nil, "email": nil, "country_code": nil, "phone_number": nil},
		"delivery":   {"method": nil, "email": nil, "country_code": nil, "phone_number": nil},
		"tax_exempt": nil, "claimed_user_id": nil, "flow_id": nil, "metadata": nil}
	flow          = fields{"id": nil, "created": nil, "user_id": nil, "steps": nil, "completed_steps": nil, "link": nil, "metadata": nil}
	payoutRequest = fields{"id": nil, "created": nil, "amount": nil, "status": nil, "payee": phoneNumber,
		"payout-link": payoutLink, "user": user, "metadata": nil, "memo": nil}
	transferBatch = fields{"id": nil, "status": nil, "metadata": nil, "items": {"transfer_id": nil, "amount": nil,
		"user_id": nil, "tax_exempt": nil, "allow_debit": nil, "metadata": nil, "error": nil}}
	paymentMethod = fields{"platform": nil, "description": nil, "id": nil, "mask": nil, "email": nil, "phone_number": nil,
		"cash_tag": nil, "country": nil, "currency": nil}
	achAccount = fields{"mask": nil, "name": nil}
)

// list is the model of a public list of items.
func list(item fields) fields { return fields{"data": item, "has_more": nil} }

// keepPublic rewrites a successful JSON answer to the fields its model declares, and notes the
// fields dropped, as "GET /v2/users/{uuid} .status".
func (d *Double) keepPublic(res *http.Response, rt route) error {
	if rt.reply == nil || res.StatusCode/100 != 2 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		return nil
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		res.Body = io.NopCloser(bytes.NewReader(body))
		return nil
	}
	dropped := map[string]bool{}
	v = strip(v, rt.reply, "", dropped)
	for _, f := range sortedKeys(dropped) {
		d.note(&d.dropped, res.Request.Method+" "+rt.path+" "+f)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	res.Body = io.NopCloser(bytes.NewReader(out))
	res.ContentLength = int64(len(out))
	res.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// strip keeps of v what model declares; at names where v lies in the answer.
func strip(v any, model fields, at string, dropped map[string]bool) any {
	if model == nil {
		return v
	}
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = strip(v[i], model, at, dropped)
		}
		return v
	case map[string]any:
		for k, inner := range v {
			sub, declared := model[k]
			if !declared {
				dropped[at+"."+k] = true
				delete(v, k)
				continue
			}
			v[k] = strip(inner, sub, at+"."+k, dropped)
		}
		return v
	}
	return v
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
