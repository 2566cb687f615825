package store

import (
	"context"
	"database/sql"
	"errors"

	"entgo.io/ent/dialect"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/lendingpipe/svc/internal/telemetry"
)

// tracedDriver gives every statement ent runs a span, its text without its
// arguments. Open wraps the driver in it only while tracing is on, so an
// untraced server pays nothing per statement.
type tracedDriver struct {
	dialect.Driver
	system attribute.KeyValue
}

func newTracedDriver(d dialect.Driver) tracedDriver {
	return tracedDriver{Driver: d, system: sqlSystem(d.Dialect())}
}

// sqlSystem names the database system of an ent dialect in spans.
func sqlSystem(dia string) attribute.KeyValue {
	if dia == dialect.Postgres {
		return semconv.DBSystemNamePostgreSQL
	}
	return semconv.DBSystemNameSQLite
}

func (d tracedDriver) Exec(ctx context.Context, query string, args, v any) error {
	return traced(ctx, d.system, query, func(ctx context.Context) error { return d.Driver.Exec(ctx, query, args, v) })
}

func (d tracedDriver) Query(ctx context.Context, query string, args, v any) error {
	return traced(ctx, d.system, query, func(ctx context.Context) error { return d.Driver.Query(ctx, query, args, v) })
}

// ExecContext and QueryContext are what ent's ExecContext and QueryContext
// (and the store's direct statements) call.
func (d tracedDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ec, ok := d.Driver.(execContexter)
	if !ok {
		return nil, errors.New("the driver does not run ExecContext")
	}
	return tracedValue(ctx, d.system, query, func(ctx context.Context) (sql.Result, error) { return ec.ExecContext(ctx, query, args...) })
}

func (d tracedDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	qc, ok := d.Driver.(queryContexter)
	if !ok {
		return nil, errors.New("the driver does not run QueryContext")
	}
	return tracedValue(ctx, d.system, query, func(ctx context.Context) (*sql.Rows, error) { return qc.QueryContext(ctx, query, args...) })
}

func (d tracedDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return tracedTx{Tx: tx, system: d.system}, nil
}

func (d tracedDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	b, ok := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	})
	if !ok {
		return d.Tx(ctx)
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return tracedTx{Tx: tx, system: d.system}, nil
}

type execContexter interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

type queryContexter interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// tracedTx is a transaction whose statements have spans.
type tracedTx struct {
	dialect.Tx
	system attribute.KeyValue
}

func (t tracedTx) Exec(ctx context.Context, query string, args, v any) error {
	return traced(ctx, t.system, query, func(ctx context.Context) error { return t.Tx.Exec(ctx, query, args, v) })
}

func (t tracedTx) Query(ctx context.Context, query string, args, v any) error {
	return traced(ctx, t.system, query, func(ctx context.Context) error { return t.Tx.Query(ctx, query, args, v) })
}

func (t tracedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ec, ok := t.Tx.(execContexter)
	if !ok {
		return nil, errors.New("the transaction does not run ExecContext")
	}
	return tracedValue(ctx, t.system, query, func(ctx context.Context) (sql.Result, error) { return ec.ExecContext(ctx, query, args...) })
}

func (t tracedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	qc, ok := t.Tx.(queryContexter)
	if !ok {
		return nil, errors.New("the transaction does not run QueryContext")
	}
	return tracedValue(ctx, t.system, query, func(ctx context.Context) (*sql.Rows, error) { return qc.QueryContext(ctx, query, args...) })
}

func traced(ctx context.Context, system attribute.KeyValue, query string, run func(context.Context) error) error {
	ctx, span := telemetry.StartSQL(ctx, system, query)
	err := run(ctx)
	telemetry.End(span, err)
	return err
}

func tracedValue[T any](ctx context.Context, system attribute.KeyValue, query string, run func(context.Context) (T, error)) (T, error) {
	ctx, span := telemetry.StartSQL(ctx, system, query)
	v, err := run(ctx)
	telemetry.End(span, err)
	return v, err
}
