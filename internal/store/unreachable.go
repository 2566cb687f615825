package store

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable reports whether err means the database could not be reached
// or dropped the connection (refused, reset, closed, shutting down), as
// opposed to refusing the statement. Callers answer 503 and retry later;
// the pool reconnects by itself once the database is back.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var (
		connect *pgconn.ConnectError
		netErr  net.Error
		pgErr   *pgconn.PgError
	)
	switch {
	case errors.As(err, &connect), errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P01-03: the server is shutting
		// down or not yet accepting connections.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	return strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "connection refused")
}

// Contended reports whether err is PostgreSQL giving up a transaction to
// settle a conflict with another: a deadlock (40P01) or a serialization
// failure (40001). Run again, the transaction may well succeed.
func Contended(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
