// Package cli is what the commands share around their command lines: the process wiring of
// main, DISBURSE_* variables as flag defaults, comma-separated values, and exit status 2 for a
// usage mistake.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Run is a command with its inputs passed in, so that tests can run it in-process.
type Run func(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error

// Main runs run with the process's arguments, environment and stdout, its context canceled on
// SIGINT or SIGTERM; an error is printed after the command's name and sets the exit status.
func Main(name string, run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		stop()
		os.Exit(ExitCode(err))
	}
}

// UsageError is a mistake on the command line or in the environment; it exits with status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ExitCode is the process's exit status for err: 2 for a usage error, 1 for any other.
func ExitCode(err error) int {
	var u UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// Env returns the default of a flag: the environment variable name when it is set, def when
// not, so that a flag given on the command line wins over the variable.
func Env(getenv func(string) string) func(name, def string) string {
	return func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
}

// List splits a comma-separated value, dropping blanks.
func List(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Flag is one row of a command's table of flags: the flag's name, the DISBURSE_* variable that
// gives its default when set, the default otherwise, its help (which names the variable), and
// how its value is read into the command's configuration C.
type Flag[C any] struct {
	Name, Env, Default, Help string
	// Set reads value into c; an error says what is wrong with the value.
	Set func(c *C, value string) error
}

// Flags holds the values of the flags Register added to a flag set, for Apply to read.
type Flags[C any] struct {
	rows   []Flag[C]
	values []*string
}

// Register adds each row to fs as a string flag whose default is the row's variable when it is
// set, else its Default, so that a flag given on the command line wins over the variable.
func (f *Flags[C]) Register(fs *flag.FlagSet, getenv func(string) string, rows ...Flag[C]) {
	env := Env(getenv)
	for _, r := range rows {
		v := new(string)
		fs.StringVar(v, r.Name, env(r.Env, r.Default), r.Help)
		f.rows, f.values = append(f.rows, r), append(f.values, v)
	}
}

// Apply reads the value of every registered flag into c, in the order registered, and returns
// every flag's problem, or a UsageError naming them all.
func (f *Flags[C]) Apply(c *C) error {
	var problems []string
	for i, r := range f.rows {
		if err := r.Set(c, *f.values[i]); err != nil {
			problems = append(problems, "--"+r.Name+" "+err.Error())
		}
	}
	if len(problems) > 0 {
		return UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	return nil
}

// HostPort refuses an address that is not host:port, the one form every listen address takes.
func HostPort(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q: want host:port", addr)
	}
	return nil
}
