package main

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/disburse/disburse/internal/cli"
	"github.com/disburse/disburse/internal/payoutd"
	"github.com/disburse/disburse/internal/rails/paypal"
	"github.com/disburse/disburse/internal/rails/stripe"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
)

// railProvider is a payout provider --rails may name: the platforms it can pay on and how it is
// built from its credentials in the environment, which it never logs.
type railProvider struct {
	platforms []payouts.Platform
	build     func(getenv func(string) string, log *slog.Logger) (payoutd.RailProvider, error)
}

// railProviders are the providers by their --rails name; adding one is an entry here. Cash App
// has no public payouts API, so no provider pays on it and it stays on the sandbox.
func railProviders() map[string]railProvider {
	return map[string]railProvider{
		"paypal": {platforms: paypal.Platforms, build: buildPayPal},
		"stripe": {platforms: []payouts.Platform{payouts.PlatformACH}, build: buildStripe},
	}
}

// buildPayPal is a PayPal REST app from PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_WEBHOOK_ID
// and PAYPAL_API_BASE (default PayPal's sandbox; live is paypal.LiveBase).
func buildPayPal(getenv func(string) string, _ *slog.Logger) (payoutd.RailProvider, error) {
	base := getenv("PAYPAL_API_BASE")
	if base == "" {
		base = paypal.SandboxBase
	}
	c, err := paypal.New(paypal.Config{BaseURL: base, ClientID: getenv("PAYPAL_CLIENT_ID"),
		ClientSecret: getenv("PAYPAL_CLIENT_SECRET"), WebhookID: getenv("PAYPAL_WEBHOOK_ID")})
	if err != nil {
		return payoutd.RailProvider{}, fmt.Errorf("%w (PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_API_BASE)", err)
	}
	return payoutd.RailProvider{Name: "paypal", Rails: c.Rails(), Webhook: c}, nil
}

// buildStripe is a Stripe Treasury financial account paying US bank accounts by ACH, from
// STRIPE_API_KEY, STRIPE_FINANCIAL_ACCOUNT, STRIPE_WEBHOOK_SECRET, STRIPE_STATEMENT_DESCRIPTOR
// and STRIPE_API_BASE (default Stripe's API); stripe-go's own lines go to log.
func buildStripe(getenv func(string) string, log *slog.Logger) (payoutd.RailProvider, error) {
	rail, err := stripe.New(stripe.Config{APIKey: getenv("STRIPE_API_KEY"), FinancialAccount: getenv("STRIPE_FINANCIAL_ACCOUNT"),
		WebhookSecret: getenv("STRIPE_WEBHOOK_SECRET"), StatementDescriptor: getenv("STRIPE_STATEMENT_DESCRIPTOR"),
		URL: getenv("STRIPE_API_BASE"), Log: log.With("rail", "stripe")})
	if err != nil {
		return payoutd.RailProvider{}, fmt.Errorf("%w (STRIPE_API_KEY, STRIPE_FINANCIAL_ACCOUNT, STRIPE_WEBHOOK_SECRET)", err)
	}
	return payoutd.RailProvider{Name: "stripe", Rails: map[payouts.Platform]service.Rail{payouts.PlatformACH: rail}, Webhook: rail}, nil
}

// parseRails reads "platform=rail,..." (rail: sandbox or a provider's name) and builds each
// provider named once, with the rails of the platforms it was named for.
func parseRails(spec string, getenv func(string) string, log *slog.Logger) ([]payoutd.RailProvider, error) {
	chosen := map[string][]payouts.Platform{}
	var order []string
	off := payoutd.RailProvider{Name: payoutd.OffRail, Rails: map[payouts.Platform]service.Rail{}}
	for _, pair := range cli.List(spec) {
		k, name, ok := strings.Cut(pair, "=")
		platform, name := payouts.Platform(strings.TrimSpace(k)), strings.TrimSpace(name)
		if !ok || !platform.Valid() {
			return nil, fmt.Errorf("%q: want platform=rail with a platform of paypal, venmo, cash_app, ach", pair)
		}
		if name == payoutd.SandboxRail {
			continue
		}
		if name == payoutd.OffRail {
			off.Rails[platform] = payoutd.Off{Platform: platform}
			continue
		}
		provider, known := railProviders()[name]
		switch {
		case !known:
			return nil, fmt.Errorf("%q: unknown rail %q; want sandbox, off or one of %s", pair, name, strings.Join(providerNames(), ", "))
		case platform == payouts.PlatformCashApp:
			return nil, fmt.Errorf("%q: Cash App has no public payouts API; cash_app stays on the sandbox or is off", pair)
		case !slices.Contains(provider.platforms, platform):
			return nil, fmt.Errorf("%q: %s cannot pay on %s", pair, name, platform)
		}
		if _, seen := chosen[name]; !seen {
			order = append(order, name)
		}
		chosen[name] = append(chosen[name], platform)
	}
	var providers []payoutd.RailProvider
	var problems []error
	for _, name := range order {
		pr, err := railProviders()[name].build(getenv, log)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for p := range pr.Rails {
			if !slices.Contains(chosen[name], p) {
				delete(pr.Rails, p)
			}
		}
		providers = append(providers, pr)
	}
	if len(off.Rails) > 0 {
		providers = append(providers, off)
	}
	return providers, errors.Join(problems...)
}

// onSandbox lists the platforms none of providers serves, which would pay through the sandbox
// rail.
func onSandbox(providers []payoutd.RailProvider) []string {
	var left []string
	for _, p := range payouts.Platforms {
		if !slices.ContainsFunc(providers, func(pr payoutd.RailProvider) bool { return pr.Rails[p] != nil }) {
			left = append(left, string(p))
		}
	}
	return left
}

func providerNames() []string {
	var names []string
	for n := range railProviders() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
