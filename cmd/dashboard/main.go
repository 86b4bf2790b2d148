// Command dashboard serves the operator dashboard.
//
// With no API URL it starts everything on one machine: the Payout Service (embedded, on its own
// port, SQLite under ./data by default) and the dashboard, which talks to it over HTTP through
// the client like any other client would. On the first start it creates the service's app and
// the first admin operator, and prints the admin's password once. The app's API credentials
// are kept in the dashboard's database, so later starts reuse them.
//
// With --api-url, --api-client-id and --api-key it runs alone against any compatible service.
//
// Every flag has a DISBURSE_* environment variable; a flag given on the command line wins.
package main

import "github.com/disburse/disburse/internal/cli"

func main() { cli.Main("dashboard", run) }
