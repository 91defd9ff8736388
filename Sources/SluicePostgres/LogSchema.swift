import PostgresNIO

/// The log's tables, keyed by lane, the server-side function that appends a batch, and the
/// snapshots' table.
///
/// `sluice_lane_head` holds one row per lane, the number of its last entry. An append locks its
/// lane's row (`SELECT … FOR UPDATE`), so the appenders of one lane take turns: each batch is
/// numbered right after the previous one and commits after it, and a reader's snapshot always
/// holds a gap-free prefix of the lane. Appenders of different lanes lock different rows and do
/// not wait for each other. The numbering never uses a SQL sequence, whose numbers are lost when
/// a transaction rolls back.
///
/// The whole append is the function `sluice_append_v3`, called in one statement: one
/// transaction per batch, and no transaction left open on the server when a node vanishes
/// mid-append (the statement runs to its end or rolls back). The engine notifies the lane's
/// listeners after the commit, in a statement of its own (``notify(_:)``): a transaction that
/// notifies holds a lock of the whole server until its commit is flushed, so a notification
/// inside the append would make every append of every lane wait for the others' flushes
/// (about 700 commits a second in all, against 4,300 without, 40 clients, pgbench, this
/// machine).
///
/// `sluice_snapshot` keeps each lane's snapshots, one per entry number: the hash, and the whole
/// `SharedSnapshot` as JSON (the same body as SQLite's table of the same name). The first
/// snapshot saved after an entry stays; saving and reading are one statement each.
enum LogSchema {
  /// The channel the engine notifies after each append, with the lane's name as the payload.
  static let channel = "sluice_log"

  /// The SQLSTATE the append function raises when a record's origin and origin sequence are in
  /// the lane with another name or payload; the detail is the record's place in the batch (from
  /// 1) and the entry's number.
  static let originConflict = "SLU01"

  /// Creates the tables, the append function and their indexes when they are missing, and turns
  /// the tables of a log of one lane (made by an earlier engine) into the lane named
  /// `"default"`; under an advisory lock, so that engines starting together do not
  /// race on the catalog.
  static let setUp: PostgresQuery = """
    DO $setup$
    BEGIN
      PERFORM pg_advisory_xact_lock(7236828213577265);
      -- Checked first: CREATE … IF NOT EXISTS needs the right to create, even for a table that
      -- exists, and a role that only appends may lack it.
      IF to_regclass('sluice_log') IS NULL THEN
        CREATE TABLE sluice_log (
          lane text NOT NULL,
          sequence bigint NOT NULL,
          origin text NOT NULL,
          origin_sequence bigint NOT NULL,
          name text NOT NULL,
          payload bytea NOT NULL,
          PRIMARY KEY (lane, sequence),
          UNIQUE (lane, origin, origin_sequence));
      ELSIF NOT EXISTS (
        SELECT 1 FROM pg_attribute
        WHERE attrelid = 'sluice_log'::regclass AND attname = 'lane' AND NOT attisdropped)
      THEN
        -- A log of one lane: it becomes the lane 'default', with its head and snapshots. The old
        -- append function goes, so that an engine of one lane still running fails instead of
        -- appending beside the lanes.
        DROP FUNCTION IF EXISTS sluice_append_v1(text[], bigint[], text[], bytea[]);
        ALTER TABLE sluice_log ADD COLUMN lane text NOT NULL DEFAULT 'default';
        ALTER TABLE sluice_log ALTER COLUMN lane DROP DEFAULT,
          DROP CONSTRAINT sluice_log_pkey,
          DROP CONSTRAINT sluice_log_origin_origin_sequence_key,
          ADD PRIMARY KEY (lane, sequence),
          ADD UNIQUE (lane, origin, origin_sequence);
        IF to_regclass('sluice_lane_head') IS NOT NULL THEN
          ALTER TABLE sluice_lane_head ADD COLUMN lane text NOT NULL DEFAULT 'default';
          ALTER TABLE sluice_lane_head ALTER COLUMN lane DROP DEFAULT,
            DROP CONSTRAINT sluice_lane_head_pkey, DROP COLUMN id, ADD PRIMARY KEY (lane);
        END IF;
        IF to_regclass('sluice_snapshot') IS NOT NULL THEN
          ALTER TABLE sluice_snapshot ADD COLUMN lane text NOT NULL DEFAULT 'default';
          ALTER TABLE sluice_snapshot ALTER COLUMN lane DROP DEFAULT,
            DROP CONSTRAINT sluice_snapshot_pkey, ADD PRIMARY KEY (lane, sequence);
        END IF;
      END IF;
      IF to_regclass('sluice_lane_head') IS NULL THEN
        CREATE TABLE sluice_lane_head (
          lane text PRIMARY KEY,
          sequence bigint NOT NULL);
        INSERT INTO sluice_lane_head (lane, sequence)
          SELECT lane, max(sequence) FROM sluice_log GROUP BY lane;
      END IF;
      -- Added after the log: a database made by an earlier engine gains it, when the role may
      -- create tables; otherwise the log works without snapshots.
      IF to_regclass('sluice_snapshot') IS NULL THEN
        BEGIN
          CREATE TABLE sluice_snapshot (
            lane text NOT NULL,
            sequence bigint NOT NULL,
            hash bigint NOT NULL,
            body bytea NOT NULL,
            PRIMARY KEY (lane, sequence));
        EXCEPTION WHEN insufficient_privilege THEN
          NULL;
        END;
      END IF;
      IF to_regprocedure('sluice_append_v3(text, text[], bigint[], text[], bytea[])') IS NULL THEN
        CREATE FUNCTION sluice_append_v3(
          append_lane text, origins text[], origin_sequences bigint[], names text[],
          payloads bytea[])
        RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $append$
        DECLARE
          head bigint;
          added bigint;
          numbers bigint[];
          conflict_place bigint;
          conflict_sequence bigint;
        BEGIN
          -- The row lock serializes the lane's appenders until commit. Each statement below
          -- takes a new snapshot (read committed), so it sees every batch committed before the
          -- lock. A lane's first append makes its row.
          SELECT sequence INTO head FROM sluice_lane_head WHERE lane = append_lane FOR UPDATE;
          IF NOT FOUND THEN
            INSERT INTO sluice_lane_head (lane, sequence) VALUES (append_lane, 0)
              ON CONFLICT (lane) DO NOTHING;
            SELECT sequence INTO STRICT head FROM sluice_lane_head
              WHERE lane = append_lane FOR UPDATE;
          END IF;
          -- The first occurrence of each (origin, origin_sequence) not already in the lane,
          -- numbered after the head in the batch's order.
          INSERT INTO sluice_log (lane, sequence, origin, origin_sequence, name, payload)
          SELECT append_lane, head + row_number() OVER (ORDER BY fresh.ord),
            fresh.origin, fresh.origin_sequence, fresh.name, fresh.payload
          FROM (
            SELECT DISTINCT ON (input.origin, input.origin_sequence) input.*
            FROM unnest(origins, origin_sequences, names, payloads) WITH ORDINALITY
              AS input(origin, origin_sequence, name, payload, ord)
            ORDER BY input.origin, input.origin_sequence, input.ord
          ) AS fresh
          WHERE NOT EXISTS (
            SELECT 1 FROM sluice_log AS entry
            WHERE entry.lane = append_lane AND entry.origin = fresh.origin
              AND entry.origin_sequence = fresh.origin_sequence);
          GET DIAGNOSTICS added = ROW_COUNT;
          -- Each record's number, and the first record whose entry holds another action: the
          -- same origin sequence reused, never the same action sent again.
          SELECT array_agg(entry.sequence ORDER BY input.ord),
            min(input.ord) FILTER (
              WHERE entry.name <> input.name OR entry.payload <> input.payload)
          INTO numbers, conflict_place
          FROM unnest(origins, origin_sequences, names, payloads) WITH ORDINALITY
            AS input(origin, origin_sequence, name, payload, ord)
          JOIN sluice_log AS entry
            ON entry.lane = append_lane AND entry.origin = input.origin
              AND entry.origin_sequence = input.origin_sequence;
          IF conflict_place IS NOT NULL THEN
            conflict_sequence := numbers[conflict_place::int];
            -- Rolls the whole batch back.
            RAISE EXCEPTION 'an origin sequence is reused for another action'
              USING ERRCODE = 'SLU01', DETAIL = conflict_place || ' ' || conflict_sequence;
          END IF;
          IF added > 0 THEN
            UPDATE sluice_lane_head SET sequence = head + added WHERE lane = append_lane;
          END IF;
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
        WHERE oid = to_regprocedure('sluice_append_v3(text, text[], bigint[], text[], bytea[])')
          AND proconfig @> ARRAY['enable_hashjoin=off'])
      THEN
        BEGIN
          ALTER FUNCTION sluice_append_v3(text, text[], bigint[], text[], bytea[])
            SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off;
        EXCEPTION WHEN insufficient_privilege THEN
          -- A function made by an earlier engine, and a role that does not own it.
          NULL;
        END;
      END IF;
    END
    $setup$
    """

  /// Appends a batch to `lane`; one row, the batch's numbers in order.
  static func append(
    to lane: String, origins: [String], originSequences: [Int64], names: [String],
    payloads: [ByteBuffer]
  ) -> PostgresQuery {
    """
    SELECT sluice_append_v3(\(lane), \(origins)::text[], \(originSequences)::bigint[], \
    \(names)::text[], \(payloads)::bytea[])
    """
  }

  /// Wakes `lane`'s listeners, once the append committed.
  static func notify(_ lane: String) -> PostgresQuery {
    "SELECT pg_notify(\(channel), \(lane))"
  }

  /// The heads of those of `lanes` that have entries, as rows of the lane and its head.
  static func heads(of lanes: [String]) -> PostgresQuery {
    "SELECT lane, sequence FROM sluice_lane_head WHERE lane = ANY(\(lanes)::text[])"
  }

  /// The number of `lane`'s last entry; no row for a lane nothing was appended to.
  static func head(of lane: String) -> PostgresQuery {
    "SELECT sequence FROM sluice_lane_head WHERE lane = \(lane)"
  }

  /// The entries of `lane` after `sequence`, in order, at most `limit`.
  static func entries(of lane: String, after sequence: Int64, limit: Int64) -> PostgresQuery {
    """
    SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
    WHERE lane = \(lane) AND sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
    """
  }

  /// The body of `lane`'s newest snapshot; no row when there is none.
  static func latestSnapshot(of lane: String) -> PostgresQuery {
    "SELECT body FROM sluice_snapshot WHERE lane = \(lane) ORDER BY sequence DESC LIMIT 1"
  }

  /// The body of `lane`'s snapshot after entry `sequence`; no row when there is none.
  static func snapshot(of lane: String, at sequence: Int64) -> PostgresQuery {
    "SELECT body FROM sluice_snapshot WHERE lane = \(lane) AND sequence = \(sequence)"
  }

  /// Saves a snapshot of `lane` unless one is saved at its sequence: the first one stays.
  static func saveSnapshot(
    to lane: String, sequence: Int64, hash: Int64, body: ByteBuffer
  ) -> PostgresQuery {
    """
    INSERT INTO sluice_snapshot (lane, sequence, hash, body)
    VALUES (\(lane), \(sequence), \(hash), \(body))
    ON CONFLICT (lane, sequence) DO NOTHING
    """
  }

  /// Takes `node`'s claim in `lane` for the session: one row, whether it was free.
  static func claim(_ node: String, of lane: String) -> PostgresQuery {
    "SELECT pg_try_advisory_lock(hashtextextended(\(claimKey(node, lane)), 0))"
  }

  /// The session's process and start, which name it on the server; one row.
  static let session: PostgresQuery = """
    SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()
    """

  /// Ends each of `sessions` that the server still runs (a session is its process and start),
  /// waiting at most `milliseconds` for each to end, then takes `node`'s claim in `lane` for
  /// this session: one row, whether it was free. It never waits for a claim another session
  /// holds.
  static func claim(
    _ node: String, of lane: String, ending sessions: [LogListener.Session],
    within milliseconds: Int64
  ) -> PostgresQuery {
    """
    SELECT count(pg_terminate_backend(pid, \(milliseconds))) >= 0 \
    AND pg_try_advisory_lock(hashtextextended(\(claimKey(node, lane)), 0)) \
    FROM pg_stat_activity WHERE (pid, backend_start::text) IN \
    (SELECT * FROM unnest(\(sessions.map(\.pid))::int4[], \(sessions.map(\.start))::text[]))
    """
  }

  /// Gives `node`'s claim in `lane` back.
  static func release(_ node: String, of lane: String) -> PostgresQuery {
    "SELECT pg_advisory_unlock(hashtextextended(\(claimKey(node, lane)), 0))"
  }

  /// One text per lane and node: the lane's length in bytes first, so that no two pairs make
  /// the same text.
  private static func claimKey(_ node: String, _ lane: String) -> String {
    "sluice-node \(lane.utf8.count) \(lane)\(node)"
  }
}
