package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The public payouts API's response models, written from its published SDK models and reference
// (every field optional unless the model requires it), with the extensions docs/API.md lists
// for each. A response passes when every required field is present, every present field has the
// model's JSON type (and value, for enumerations), no field is null unless the model allows it,
// and every field the model does not declare is one of our listed extensions.

// kind is a JSON type, as the models name them.
type kind string

const (
	kString  kind = "string"
	kNumber  kind = "number"
	kInteger kind = "integer"
	kBoolean kind = "boolean"
	kObject  kind = "object"
	kArray   kind = "array"
	kAny     kind = "any" // metadata: whatever the client stored
)

// model is the declared shape of a JSON value.
type model struct {
	kind     kind
	nullable bool
	enum     []string
	fields   []field  // of an object
	ext      []string // our extensions to an object, allowed beyond fields
	elem     *model   // of an array
}

type field struct {
	name     string
	required bool
	model    model
}

func req(name string, m model) field { return field{name: name, required: true, model: m} }
func opt(name string, m model) field { return field{name: name, model: m} }

var (
	str      = model{kind: kString}
	number   = model{kind: kNumber}
	integer  = model{kind: kInteger}
	boolean  = model{kind: kBoolean}
	metadata = model{kind: kAny, nullable: true}
)

func enum(values ...string) model              { return model{kind: kString, enum: values} }
func nullable(m model) model                   { m.nullable = true; return m }
func arrayOf(m model) model                    { return model{kind: kArray, elem: &m} }
func object(fields ...field) model             { return model{kind: kObject, fields: fields} }
func (m model) extensions(ext ...string) model { m.ext = append(slices.Clone(m.ext), ext...); return m }

// listOf is a page of a list endpoint.
func listOf(m model) model {
	return object(opt("has_more", boolean), opt("data", arrayOf(m)))
}

var stepNames = []string{"compliance", "id-verification", "background-check", "manage-payments", "manage-payouts", "payout", "redirect"}

var (
	walletModel = object(opt("amount", integer), opt("withdrawable_amount", integer), opt("credit_balance", integer))

	phoneModel = object(opt("country_code", str), opt("phone_number", str))

	userModel = object(
		opt("id", str), opt("first_name", str), opt("last_name", str), opt("email", str),
		opt("phone_number", phoneModel),
		opt("default_payout_method", enum("ach", "paypal", "venmo", "cash_app", "intl_bank", "airtm", "payoneer", "crypto")),
		opt("wallet", walletModel),
		opt("status", enum("verified", "unverified", "disabled", "in_review")),
		opt("compliance", object(
			opt("tax_id_collected", boolean), opt("address_collected", boolean), opt("date_of_birth_collected", boolean),
			opt("must_collect_1099", boolean), opt("1099_collected", boolean), opt("w8_ben_collected", boolean),
			opt("flagged", boolean), opt("id_verified", boolean))),
		opt("metadata", metadata),
	).extensions("username", "verified", "created")

	paymentMethodModel = object(
		opt("id", str), req("platform", enum("ach", "paypal", "venmo", "cash_app", "intl_transfer", "airtm", "payoneer")),
		opt("description", str), opt("mask", str), opt("email", str), opt("phone_number", str), opt("cash_tag", str),
		opt("country", str), opt("currency", str),
	).extensions("handle", "default", "created")

	transactionModel = object(
		opt("id", integer), opt("amount", number), opt("created", str), opt("source_name", str), opt("destination_name", str),
		opt("type", enum("balance", "refill", "payout", "payment", "fee", "surrogate")),
		opt("metadata", metadata), opt("transfer_id", str),
	).extensions("status", "user_id", "direction", "posted")

	transferModel = object(
		opt("id", str), opt("created", str), opt("user_id", str),
		opt("status", enum("created", "pending", "failed", "completed", "reversed", "canceled", "flagged")),
		opt("type", enum("refill", "payout", "balance", "payment")),
		opt("amount", number),
		opt("external_data", object(opt("account_id", str), opt("external_id", str),
			opt("platform", enum("ach", "rtp", "paypal", "venmo", "visa", "amazon", "cash_app", "intl_bank", "intl_transfer", "bank_transfer", "airtm", "payoneer")))),
		opt("transactions", arrayOf(transactionModel)),
		opt("payout_link_id", str),
		opt("metadata", metadata),
	).extensions("failure_reason", "status_history", "tax_exempt")

	// organizationTransferModel: the public SDK answers organization transfers as transfers.
	organizationTransferModel = transferModel.extensions("api_app_id", "organization_id")

	payoutLinkModel = object(
		opt("id", str), opt("created", str), opt("link", str), opt("amount", number),
		opt("status", enum("created", "sent", "claimed", "delivery_pending", "delivery_failed", "delivered", "canceled", "expired", "failed")),
		opt("payee", object(opt("first_name", str), opt("last_name", str), opt("email", str), opt("country_code", str), opt("phone_number", str))),
		opt("delivery", object(opt("method", enum("link", "sms", "email")), opt("email", str), opt("country_code", str),
			opt("phone_number", str)).extensions("message")),
		opt("tax_exempt", boolean), opt("claimed_user_id", str), opt("flow_id", str), opt("transfer_id", str),
		opt("memo", nullable(str)), opt("metadata", metadata),
	).extensions("user_id", "payout_fee_party", "claimed_at", "claimed_via")

	payoutRequestModel = object(
		opt("id", str), opt("created", str), opt("amount", number), opt("status", enum("created", "approved", "rejected")),
		opt("payee", object(opt("country_code", str), opt("phone_number", str)).extensions("first_name", "last_name", "email")),
		opt("payout-link", payoutLinkModel), opt("user", userModel),
		opt("metadata", metadata), opt("memo", model{kind: kAny, nullable: true}),
	).extensions("transfer_id", "reject_reason")

	flowModel = object(
		opt("id", str), opt("created", str), opt("user_id", nullable(str)),
		opt("steps", arrayOf(enum(stepNames...))), opt("completed_steps", arrayOf(enum(stepNames...))),
		opt("link", str), opt("metadata", metadata),
	).extensions("payout_link_id", "redirect_url")

	transferBatchItemModel = object(
		opt("transfer_id", str), opt("amount", integer), opt("user_id", str), opt("tax_exempt", boolean),
		opt("allow_debit", boolean), opt("metadata", model{kind: kObject}), opt("error", str),
	).extensions("idempotency_key")

	transferBatchModel = object(
		opt("id", str), opt("status", enum("pending", "completed")), opt("metadata", model{kind: kObject}),
		opt("items", arrayOf(transferBatchItemModel)),
	).extensions("created")

	appModel = object(
		req("id", str), req("name", str), opt("status", enum("created", "in_review", "approved")),
		req("metrics", object(req("wallet_balance", str), req("money_out", str), req("connected_users", integer))),
		opt("metadata", model{kind: kAny}), // a string or an object, never null
	).extensions("wallet", "created", "organization_id", "credentials")

	achAccountModel = object(opt("mask", str), opt("name", str)).extensions("routing_number", "account_type")

	postalModel = func(state field) model {
		return object(req("line1", str), opt("line2", str), req("city", str), state, req("zip", str), req("country", str))
	}

	businessComplianceModel = object(
		req("company_info", object(
			opt("dba", str), req("ein", str), req("incorporation_date", str), req("incorporation_state", str),
			req("incorporation_type", enum("sole_proprietorship", "partnership", "llc", "c_corporation", "s_corporation")),
			req("name", str), req("website", str),
		).extensions("ein_last4")),
		req("contact_info", object(append(postalModel(req("state", str)).fields, req("email", str), req("phone_number", str))...)),
		req("directors", arrayOf(object(
			req("title", str), req("address", postalModel(opt("state", str))), req("dob", str), req("email", str),
			req("first_name", str), req("last_name", str), req("ownership_percentage", number), req("phone", str)))),
		req("flow_of_funds", object(req("reasons", str), req("usage", str))),
	)
)

// conform returns every way v, decoded with UseNumber, departs from m; at names the value.
func conform(at string, v any, m model) []string {
	if v == nil {
		if m.nullable {
			return nil
		}
		return []string{at + ": null, which the model does not allow"}
	}
	if !hasKind(v, m.kind) {
		return []string{fmt.Sprintf("%s: %s, want %s", at, jsonKind(v), m.kind)}
	}
	var problems []string
	if s, ok := v.(string); ok && m.enum != nil && !slices.Contains(m.enum, s) {
		problems = append(problems, fmt.Sprintf("%s: %q is not one of %s", at, s, strings.Join(m.enum, ", ")))
	}
	switch m.kind {
	case kArray:
		for i, e := range v.([]any) {
			problems = append(problems, conform(fmt.Sprintf("%s[%d]", at, i), e, *m.elem)...)
		}
	case kObject:
		if m.fields == nil && m.ext == nil {
			return problems // a free-form object
		}
		obj := v.(map[string]any)
		for _, f := range m.fields {
			fv, ok := obj[f.name]
			if !ok {
				if f.required {
					problems = append(problems, at+"."+f.name+": missing, and the model requires it")
				}
				continue
			}
			problems = append(problems, conform(at+"."+f.name, fv, f.model)...)
		}
		var unknown []string
		for name := range obj {
			declared := slices.ContainsFunc(m.fields, func(f field) bool { return f.name == name })
			if !declared && !slices.Contains(m.ext, name) {
				unknown = append(unknown, name)
			}
		}
		sort.Strings(unknown)
		for _, name := range unknown {
			problems = append(problems, at+"."+name+": neither in the model nor a listed extension")
		}
	}
	return problems
}

func hasKind(v any, k kind) bool {
	switch k {
	case kAny:
		return true
	case kInteger:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return jsonKind(v) == k || (k == kNumber && jsonKind(v) == kInteger)
}

func jsonKind(v any) kind {
	switch v := v.(type) {
	case string:
		return kString
	case bool:
		return kBoolean
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return kInteger
		}
		return kNumber
	case []any:
		return kArray
	case map[string]any:
		return kObject
	}
	return "null"
}
