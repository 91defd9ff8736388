import PostgresNIO

/// The log's tables, the server-side function that appends a batch, and the snapshots' table.
///
/// `sluice_lane_head` holds one row, the number of the last entry. An append locks that row
/// (`SELECT … FOR UPDATE`), so appenders take turns: each batch is numbered right after the
/// previous one and commits after it, and a reader's snapshot always holds a gap-free prefix of
/// the log. The numbering never uses a SQL sequence, whose numbers are lost when a transaction
/// rolls back.
///
/// The whole append is the function `sluice_append_v1`, called in one statement: one round
/// trip and one transaction per batch, and no transaction left open on the server when a node
/// vanishes mid-append (the statement runs to its end or rolls back).
///
/// `sluice_snapshot` keeps the shared lane's snapshots, one per entry number: the hash, and the
/// whole `SharedSnapshot` as JSON (the same body as SQLite's table of the same name). The first
/// snapshot saved after an entry stays; saving and reading are one statement each.
enum LogSchema {
  /// The channel appends notify, with the new head as the payload.
  static let channel = "sluice_log"

  /// The lane of a log that names none.
  static let defaultLane = "default"

  /// Creates the tables, the head row and the append function when they are missing, under an
  /// advisory lock so that engines starting together do not race on the catalog.
  static let setUp: PostgresQuery = """
    DO $setup$
    BEGIN
      PERFORM pg_advisory_xact_lock(7236828213577265);
      -- Checked first: CREATE … IF NOT EXISTS needs the right to create, even for a table that
      -- exists, and a role that only appends may lack it.
      IF to_regclass('sluice_log') IS NULL THEN
        CREATE TABLE sluice_log (
          sequence bigint PRIMARY KEY,
          origin text NOT NULL,
          origin_sequence bigint NOT NULL,
          name text NOT NULL,
          payload bytea NOT NULL,
          UNIQUE (origin, origin_sequence));
      END IF;
      IF to_regclass('sluice_lane_head') IS NULL THEN
        CREATE TABLE sluice_lane_head (
          id int PRIMARY KEY,
          sequence bigint NOT NULL);
      END IF;
      IF NOT EXISTS (SELECT 1 FROM sluice_lane_head WHERE id = 1) THEN
        INSERT INTO sluice_lane_head (id, sequence)
          SELECT 1, coalesce(max(sequence), 0) FROM sluice_log
          ON CONFLICT (id) DO NOTHING;
      END IF;
      -- Added after the log: a database made by an earlier engine gains it, when the role may
      -- create tables; otherwise the log works without snapshots.
      IF to_regclass('sluice_snapshot') IS NULL THEN
        BEGIN
          CREATE TABLE sluice_snapshot (
            sequence bigint PRIMARY KEY,
            hash bigint NOT NULL,
            body bytea NOT NULL);
        EXCEPTION WHEN insufficient_privilege THEN
          NULL;
        END;
      END IF;
      IF to_regprocedure('sluice_append_v1(text[], bigint[], text[], bytea[])') IS NULL THEN
        CREATE FUNCTION sluice_append_v1(
          origins text[], origin_sequences bigint[], names text[], payloads bytea[])
        RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $append$
        DECLARE
          head bigint;
          added bigint;
          numbers bigint[];
        BEGIN
          -- The row lock serializes appenders until commit. Each statement below takes a new
          -- snapshot (read committed), so it sees every batch committed before the lock.
          SELECT sequence INTO STRICT head FROM sluice_lane_head WHERE id = 1 FOR UPDATE;
          -- The first occurrence of each (origin, origin_sequence) not already in the log,
          -- numbered after the head in the batch's order.
          INSERT INTO sluice_log (sequence, origin, origin_sequence, name, payload)
          SELECT head + row_number() OVER (ORDER BY fresh.ord),
            fresh.origin, fresh.origin_sequence, fresh.name, fresh.payload
          FROM (
            SELECT DISTINCT ON (input.origin, input.origin_sequence) input.*
            FROM unnest(origins, origin_sequences, names, payloads) WITH ORDINALITY
              AS input(origin, origin_sequence, name, payload, ord)
            ORDER BY input.origin, input.origin_sequence, input.ord
          ) AS fresh
          WHERE NOT EXISTS (
            SELECT 1 FROM sluice_log AS entry
            WHERE entry.origin = fresh.origin AND entry.origin_sequence = fresh.origin_sequence);
          GET DIAGNOSTICS added = ROW_COUNT;
          IF added > 0 THEN
            UPDATE sluice_lane_head SET sequence = head + added WHERE id = 1;
            -- Delivered to listeners when the transaction commits, never before.
            PERFORM pg_notify('sluice_log', (head + added)::text);
          END IF;
          SELECT array_agg(entry.sequence ORDER BY input.ord) INTO numbers
          FROM unnest(origins, origin_sequences) WITH ORDINALITY
            AS input(origin, origin_sequence, ord)
          JOIN sluice_log AS entry
            ON entry.origin = input.origin AND entry.origin_sequence = input.origin_sequence;
          RETURN numbers;
        END
        $append$;
      END IF;
      -- Every look for a record in the log is an index probe, whatever the statistics say. The
      -- function's plans are cached at its first calls, often while the log is still empty,
      -- when a hash join over the whole table looks cheaper; that plan then costs more with
      -- every entry (8 ms for 100 records at 20,000 entries, against 1 ms).
      IF NOT EXISTS (
        SELECT 1 FROM pg_proc
        WHERE oid = to_regprocedure('sluice_append_v1(text[], bigint[], text[], bytea[])')
          AND proconfig @> ARRAY['enable_hashjoin=off'])
      THEN
        BEGIN
          ALTER FUNCTION sluice_append_v1(text[], bigint[], text[], bytea[])
            SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off;
        EXCEPTION WHEN insufficient_privilege THEN
          -- A function made by an earlier engine, and a role that does not own it.
          NULL;
        END;
      END IF;
    END
    $setup$
    """

  /// Appends a batch; one row, the batch's numbers in order.
  static func append(
    origins: [String], originSequences: [Int64], names: [String], payloads: [ByteBuffer]
  ) -> PostgresQuery {
    """
    SELECT sluice_append_v1(\(origins)::text[], \(originSequences)::bigint[], \
    \(names)::text[], \(payloads)::bytea[])
    """
  }

  /// The number of the last entry.
  static let head: PostgresQuery = "SELECT sequence FROM sluice_lane_head WHERE id = 1"

  /// The entries after `sequence`, in order, at most `limit`.
  static func entries(after sequence: Int64, limit: Int64) -> PostgresQuery {
    """
    SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
    WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
    """
  }

  /// The newest snapshot's body; no row when there is none.
  static let latestSnapshot: PostgresQuery =
    "SELECT body FROM sluice_snapshot ORDER BY sequence DESC LIMIT 1"

  /// The body of the snapshot after entry `sequence`; no row when there is none.
  static func snapshot(at sequence: Int64) -> PostgresQuery {
    "SELECT body FROM sluice_snapshot WHERE sequence = \(sequence)"
  }

  /// Saves a snapshot unless one is saved at its sequence: the first one stays.
  static func saveSnapshot(sequence: Int64, hash: Int64, body: ByteBuffer) -> PostgresQuery {
    """
    INSERT INTO sluice_snapshot (sequence, hash, body) VALUES (\(sequence), \(hash), \(body))
    ON CONFLICT (sequence) DO NOTHING
    """
  }
}
