// Command svc is the lending-pipeline service. `svc serve` (the default)
// runs the HTTP server (REST /v1 and GraphQL) with its webhook worker and
// hourly maintenance; `svc orgs|keys|users create` administer it; `svc
// reindex` rebuilds the search index; `svc rollups rebuild` the analytics
// rollups; `svc seed` fills an organization with
// data for load runs, `svc loadtest` measures this binary's server against
// it and `svc baseline` serves the load runs' reference handler; `svc
// openapi` prints the OpenAPI document. `svc help` lists them.
//
// Settings come from the environment (config.go); serving is in server.go
// and the other commands in commands.go.
//
// Package main is the top layer: it may import every package of the
// service, and nothing imports it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// env is what a command runs with once its flags are parsed.
type env struct {
	cfg            config
	logger         *slog.Logger
	stdout, stderr io.Writer
}

// action runs a command whose flags are parsed.
type action func(ctx context.Context, e env) error

// command is one of svc's commands.
type command struct {
	name     string // one or two words: "serve", "keys create"
	synopsis string // its flags, for the usage line
	summary  string // one line, for the list of commands
	about    string // what `svc help COMMAND` adds to the summary
	// setup defines the command's flags on fs and returns what runs it.
	setup func(fs *flag.FlagSet) action
}

// commands is every command, in the order `svc help` lists them.
var commands = []command{
	{name: "serve", synopsis: "[--demo]", setup: setupServe,
		summary: "run the HTTP server: REST /v1, GraphQL and its playground, the web console (the default command)",
		about: `Listens on SVC_ADDR (:8080) with the database SVC_DATABASE_URL (svc.db) and prints
the URLs to open. When it creates svc.db itself (SVC_DATABASE_URL unset and no svc.db
yet), it adds the demo organization and prints its API key once; --demo adds it to
any database that has none.`},
	{name: "orgs create", synopsis: "--name NAME", setup: setupOrgsCreate,
		summary: "create an organization; prints its dialer connector token (shown once), then its id"},
	{name: "keys create", synopsis: "--org ID --scopes LIST [--kind live|at] [--name NAME]", setup: setupKeysCreate,
		summary: "create an API key for an organization; prints it (shown once)"},
	{name: "keys list", synopsis: "--org ID [--all]", setup: setupKeysList,
		summary: "list an organization's API keys (never their secrets); --all adds the revoked"},
	{name: "keys revoke", synopsis: "--org ID --id KEY", setup: setupKeysRevoke,
		summary: "revoke an API key: refused within 10 seconds on every server"},
	{name: "keys rotate", synopsis: "--org ID --id KEY [--grace 24h]", setup: setupKeysRotate,
		summary: "replace an API key; prints the new one (shown once); the old works for --grace"},
	{name: "users create", synopsis: "--org ID --first NAME --last NAME --email EMAIL [--role ROLE] [--team NAME]", setup: setupUsersCreate,
		summary: "create an advisor, agent or admin; prints its id"},
	{name: "reindex", setup: setupReindex,
		summary: "rebuild the SQLite search index (after a VACUUM)"},
	{name: "rollups rebuild", synopsis: "[--org ID]", setup: setupRollupsRebuild,
		summary: "compute the analytics rollups again from the records",
		about: `Recomputes an organization's analytics rollups (every organization's without --org)
from its records, in its time zone, in one transaction. svc serve does this by itself
for an organization whose time zone changed or whose rollups were never built; reports
read the records meanwhile, exactly but slower.`},
	{name: "seed", synopsis: "--org ID [--leads N] [--agents N] [--events N]", setup: setupSeed,
		summary: "fill an organization with generated data for load runs"},
	{name: "loadtest", synopsis: "[flags]", setup: setupLoadTest,
		summary: "seed a load organization and measure this binary's server on it"},
	{name: "baseline", setup: setupBaseline,
		summary: "serve the load runs' reference handler on SVC_ADDR"},
	{name: "doctor", synopsis: "[--replicas N] [--timeout 5s]", setup: setupDoctor,
		summary: "check this deployment's settings and connections; exits 1 when a check fails",
		about: `Reads the settings as svc serve does, then checks the database (reachable, its
version, whether the schema is current, whether it takes writes, and on PostgreSQL
whether --replicas processes fit in its connections), Redis when SVC_REDIS_URL is set,
and the file store (writes, reads back and removes a probe file). It never migrates.`},
	{name: "openapi", setup: setupOpenAPI,
		summary: "print the OpenAPI document"},
}

// usageError is a command line svc cannot run: an unknown command, a bad or
// missing flag. It exits 2, as the flag package does for usage errors.
type usageError struct {
	command string // the command whose usage to read; "" for the list
	msg     string
}

func (e *usageError) Error() string {
	if e.command == "" {
		return e.msg
	}
	return e.command + ": " + e.msg
}

func usagef(command, format string, args ...any) error {
	return &usageError{command: command, msg: fmt.Sprintf(format, args...)}
}

// exitCode reports err on stderr and returns the exit status: 0 without an
// error, 2 for a usage error, 1 for any other.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "svc: %s\nRun 'svc help%s' for usage.\n", usage, strings.TrimRight(" "+usage.command, " "))
		return 2
	default:
		fmt.Fprintln(stderr, "svc:", err)
		return 1
	}
}

// run parses the command line and runs its command. Help and usage errors
// come before the settings are read, so asking for help needs no valid
// settings and touches no database.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		args = append([]string{"serve"}, args...) // serve is the default
	}
	if isHelp(args[0]) {
		return help(args[1:], stdout)
	}
	cmd, rest, err := lookup(args)
	if err != nil {
		return err
	}
	fs, act := cmd.flags()
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return cmd.usage(stdout)
	} else if err != nil {
		return usagef(cmd.name, "%v", err)
	}
	if fs.NArg() > 0 {
		return usagef(cmd.name, "unexpected argument %q", fs.Arg(0))
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	return act(ctx, env{cfg: cfg, logger: newLogger(stderr, cfg.LogLevel), stdout: stdout, stderr: stderr})
}

func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// lookup finds the command args begin with and returns the rest of args.
func lookup(args []string) (command, []string, error) {
	for _, c := range commands {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			return c, args[len(words):], nil
		}
	}
	for _, c := range commands {
		if strings.HasPrefix(c.name, args[0]+" ") {
			return command{}, nil, usagef("", "unknown command %q; did you mean %q?", strings.Join(args[:min(2, len(args))], " "), c.name)
		}
	}
	return command{}, nil, usagef("", "unknown command %q", args[0])
}

// flags returns the command's flag set, which reports errors and help
// requests to run rather than printing them itself.
func (c command) flags() (*flag.FlagSet, action) {
	fs := flag.NewFlagSet("svc "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.setup(fs)
}

// usage prints the command's usage line, description and flags.
func (c command) usage(w io.Writer) error {
	fmt.Fprintf(w, "Usage: svc %s\n\n%s.\n", strings.TrimSpace(c.name+" "+c.synopsis), upperFirst(c.summary))
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", c.about)
	}
	fs, _ := c.flags()
	if n := countFlags(fs); n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	return nil
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// groupCommands are the commands whose first word is group (keys: keys
// create, ...); none when group is a command of its own.
func groupCommands(group string) []command {
	var out []command
	for _, c := range commands {
		if strings.HasPrefix(c.name, group+" ") {
			out = append(out, c)
		}
	}
	return out
}

// listCommands writes a table of cs, their summaries aligned past the
// longest name.
func listCommands(w io.Writer, cs []command) {
	width := 0
	for _, c := range cs {
		width = max(width, len(c.name))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
}

// help prints the list of commands, a group's (svc help keys), or with a
// command one command's usage.
func help(args []string, w io.Writer) error {
	if len(args) == 1 {
		if group := groupCommands(args[0]); len(group) > 0 {
			fmt.Fprintf(w, "Usage: svc %s COMMAND [flags]\n\nCommands:\n", args[0])
			listCommands(w, group)
			fmt.Fprintf(w, "\nRun 'svc help %s COMMAND' for a command's flags.\n", args[0])
			return nil
		}
	}
	if len(args) > 0 {
		cmd, rest, err := lookup(args)
		if err != nil {
			return err
		}
		if len(rest) > 0 {
			return usagef("", "help takes a command, not %q", strings.Join(args, " "))
		}
		return cmd.usage(w)
	}
	fmt.Fprint(w, "svc is the lending-pipeline service.\n\nUsage: svc [command] [flags]\n\nCommands:\n")
	listCommands(w, append(slices.Clone(commands),
		command{name: "help", summary: "list the commands, or show one command's flags: svc help COMMAND"}))
	fmt.Fprint(w, "\nSettings are SVC_* environment variables (docs/configuration.md).\n"+
		"Run 'svc help COMMAND' or 'svc COMMAND --help' for a command's flags.\n")
	return nil
}
