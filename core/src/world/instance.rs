//! Instances: a job per attempt stepping through its program, the
//! connection pool, crashes and restarts.

use super::*;

impl World {
    /// What the handler reads for a step of `attempt`'s job.
    pub(super) fn situation(&self, attempt: AttemptId) -> handler::Situation<'_> {
        let a = &self.attempts[attempt.ix()];
        handler::Situation {
            scenario: &self.scenario,
            now_ms: self.now_ms,
            intent_index: a.intent,
            intent: &self.intents[a.intent as usize].1,
            key: &a.key,
            fingerprint: &a.fingerprint,
        }
    }

    /// Whether `attempt` is a queue's delivery rather than an HTTP request.
    pub(crate) fn is_delivery(&self, attempt: AttemptId) -> bool {
        let client = self.attempts[attempt.ix()].client as usize;
        self.scenario.clients[client].kind == ClientKind::Queue
    }

    pub(super) fn schedule_step(&mut self, instance: InstanceId, attempt: AttemptId) {
        let job = self.job(instance, attempt).expect("job exists");
        let cost = if handler::costs_sql(&self.scenario, job.pc) {
            self.scenario.db_latency_ms
        } else {
            0
        };
        self.agenda
            .push(self.now_ms + cost, Due::Step { instance, attempt });
    }

    pub(crate) fn job(&self, instance: InstanceId, attempt: AttemptId) -> Option<&Job> {
        self.instances[instance.ix()]
            .jobs
            .iter()
            .find(|j| j.attempt == attempt.0)
    }

    pub(super) fn job_mut(&mut self, instance: InstanceId, attempt: AttemptId) -> Option<&mut Job> {
        self.instances[instance.ix()]
            .jobs
            .iter_mut()
            .find(|j| j.attempt == attempt.0)
    }

    pub(super) fn run_step(
        &mut self,
        instance: InstanceId,
        attempt: AttemptId,
        chooser: &mut dyn Chooser,
        store_exec: &mut dyn StoreExec,
    ) {
        let Some(job) = self.job(instance, attempt) else {
            return; // the instance crashed since this step was scheduled
        };
        match handler::action(&self.situation(AttemptId(job.attempt)), job) {
            Action::Sql(inputs) => self.run_sql(instance, attempt, inputs, store_exec),
            Action::Capture => self.capture(instance, attempt),
            Action::Publish => self.publish(instance, attempt),
            Action::Respond(status, headers, body) => {
                self.finish_job(instance, attempt);
                self.send_response(attempt, Some(instance.0), status, headers, body, chooser);
            }
        }
    }

    pub(super) fn run_sql(
        &mut self,
        instance: InstanceId,
        attempt: AttemptId,
        inputs: handler::StmtInputs,
        store_exec: &mut dyn StoreExec,
    ) {
        let inst = &mut self.instances[instance.ix()];
        let conn_ix = match inst
            .connections
            .iter()
            .position(|c| c.job == Some(attempt.0))
        {
            Some(ix) => ix,
            None => match inst.connections.iter().position(|c| c.job.is_none()) {
                Some(ix) => {
                    inst.connections[ix].job = Some(attempt.0);
                    ix
                }
                None => {
                    inst.connection_queue.push(attempt.0);
                    self.emit(
                        Actor::Instance(instance.0),
                        EventKind::ConnectionWait { attempt: attempt.0 },
                    );
                    return;
                }
            },
        };
        let session = self.instances[instance.ix()].connections[conn_ix].session;
        if handler::deletes_key(&self.scenario, inputs.pc) {
            self.watch_forget(inputs.row_id);
        }
        let build = || handler::statement(&self.scenario, &self.intents, &inputs);
        // Built here only for its text or the log; otherwise the executor
        // builds it when it needs it (a memo, only when it has not seen it).
        let stmt = (!self.quiet || self.log_store).then(build);
        let sql = match (&stmt, self.quiet) {
            (Some(stmt), false) => stmt.to_sql(),
            _ => String::new(),
        };
        let shape = stmt.as_ref().map(handler::shape_of);
        if self.log_store {
            self.store_log.push(StoreStatement {
                session: session.0,
                instance: Some(instance.0),
                time_ms: self.now_ms,
                stmt: stmt.clone().expect("built when logging"),
                waited: false,
                closed: false,
            });
        }
        let lease = self.job(instance, attempt).and_then(|j| j.lease_token);
        let watched = self.watch_before(session, &inputs, lease);
        // The statement built above is handed over rather than built again.
        let built = std::cell::Cell::new(stmt);
        let exec = store_exec.execute(&mut self.store, session, &inputs, &|| {
            built.take().unwrap_or_else(build)
        });
        if self.log_store && matches!(*exec, Exec::Waiting { .. }) {
            self.store_log.last_mut().expect("just pushed").waited = true;
        }
        match exec.as_ref() {
            &Exec::Waiting { on } => {
                let on_instance = self.instance_of_session(on).map(|i| i.0);
                // A quiet world without a log built no statement; one that
                // waits is rare, so build it now to ask.
                let shape = shape.unwrap_or_else(|| handler::shape_of(&build()));
                let (now, quiet) = (self.now_ms, self.quiet);
                let job = self.job_mut(instance, attempt).expect("job exists");
                job.waiting_since_ms = Some(now);
                // Quiet worlds keep no SQL text, so none is shared here either.
                job.waiting_sql = (!quiet).then(|| sql.as_str().into());
                job.waiting_shape = shape;
                self.emit(
                    Actor::Instance(instance.0),
                    EventKind::Sql {
                        attempt: Some(attempt.0),
                        sql,
                        outcome: SqlOutcome::Waiting { on_instance },
                    },
                );
            }
            Exec::Done(result) => {
                if let (Ok(r), Some(outbox)) =
                    (result, handler::inserts_effect(&self.scenario, inputs.pc))
                    && r.affected == 1
                {
                    self.note_effect(outbox, inputs.intent);
                }
                // Lazily: the outcome copies the rows, and quiet worlds
                // (every explorer transition) keep no events.
                self.emit_with(Actor::Instance(instance.0), || EventKind::Sql {
                    attempt: Some(attempt.0),
                    sql,
                    outcome: handler::outcome_of(shape.expect("built when not quiet"), result),
                });
                if let Some(before) = watched {
                    self.watch_after(before, &inputs.key);
                }
                self.after_sql(instance, attempt, result);
            }
        }
        self.drain_completions();
    }

    pub(super) fn instance_of_session(&self, s: SessionId) -> Option<InstanceId> {
        self.instances
            .iter()
            .position(|i| i.connections.iter().any(|c| c.session == s))
            .map(|i| InstanceId(i as u32))
    }

    pub(super) fn drain_completions(&mut self) {
        while self.store.has_completions() {
            let done = self.store.take_completions();
            for Completion { session, result } in done {
                let Some(instance) = self.instance_of_session(session) else {
                    continue; // recovery's own statements never wait long
                };
                let Some(attempt) = self.instances[instance.ix()]
                    .connections
                    .iter()
                    .find(|c| c.session == session)
                    .and_then(|c| c.job)
                else {
                    continue;
                };
                let now = self.now_ms;
                let job = self
                    .job_mut(instance, AttemptId(attempt))
                    .expect("connection's job exists");
                let waited_ms = job.waiting_since_ms.take().map_or(0, |t| now - t);
                let sql = job
                    .waiting_sql
                    .take()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                let shape = job.waiting_shape;
                self.blocked_ms += waited_ms;
                self.emit_with(Actor::Instance(instance.0), || EventKind::SqlResumed {
                    attempt: Some(attempt),
                    sql,
                    outcome: handler::outcome_of(shape, &result),
                    waited_ms,
                });
                self.after_sql(instance, AttemptId(attempt), &result);
            }
        }
    }

    pub(super) fn after_sql(
        &mut self,
        instance: InstanceId,
        attempt: AttemptId,
        result: &crate::store::StmtResult,
    ) {
        let session = self.instances[instance.ix()]
            .connections
            .iter()
            .find(|c| c.job == Some(attempt.0))
            .map(|c| c.session)
            .expect("a statement ran on a held connection");
        let committed = result.is_ok() && !self.store.in_transaction(session);
        let pc_before = self.job(instance, attempt).expect("job").pc;
        let mut job = self.job(instance, attempt).cloned().expect("job");
        handler::on_sql_result(&self.situation(AttemptId(job.attempt)), &mut job, result);
        *self.job_mut(instance, attempt).expect("job") = job;
        if handler::lease_taken(&self.scenario, pc_before, result) {
            self.emit(
                Actor::Instance(instance.0),
                EventKind::LeaseTaken { attempt: attempt.0 },
            );
        }
        if !self.store.in_transaction(session) {
            self.release_connection(instance, attempt);
        }
        let claim_committed = handler::commits_claim(&self.scenario, pc_before);
        if committed && claim_committed && self.crash_point_hit(instance, CrashPoint::AfterCommit) {
            return;
        }
        self.schedule_step(instance, attempt);
    }

    pub(super) fn release_connection(&mut self, instance: InstanceId, attempt: AttemptId) {
        let inst = &mut self.instances[instance.ix()];
        if let Some(c) = inst
            .connections
            .iter_mut()
            .find(|c| c.job == Some(attempt.0))
        {
            c.job = None;
            if !inst.connection_queue.is_empty() {
                let next = inst.connection_queue.remove(0);
                self.schedule_step(instance, AttemptId(next));
            }
        }
    }

    pub(super) fn finish_job(&mut self, instance: InstanceId, attempt: AttemptId) {
        self.release_connection(instance, attempt);
        self.instances[instance.ix()]
            .jobs
            .retain(|j| j.attempt != attempt.0);
    }

    pub(super) fn send_response(
        &mut self,
        attempt: AttemptId,
        instance: Option<u32>,
        status: u16,
        headers: Option<Text>,
        body: Text,
        chooser: &mut dyn Chooser,
    ) {
        let actor = instance.map_or(Actor::LoadBalancer, Actor::Instance);
        let ack = self.is_delivery(attempt);
        if ack && (200..300).contains(&status) {
            self.watch_ack(attempt);
        }
        self.attempts[attempt.ix()].answer_in_flight(status, headers.clone(), body.clone());
        self.emit_with(actor, || EventKind::Responded {
            attempt: attempt.0,
            status,
            headers: headers.as_deref().map(String::from),
            body: body.to_string(),
            ack,
        });
        if self.dropped(attempt, false) {
            self.emit(
                Actor::Network,
                EventKind::ResponseDropped { attempt: attempt.0 },
            );
            return;
        }
        let hop = self.hop_ms(chooser);
        self.agenda
            .push(self.now_ms + hop, Due::ResponseArrive { attempt });
    }

    /// Fires an armed crash at this point; true if the instance died.
    pub(super) fn crash_point_hit(&mut self, instance: InstanceId, point: CrashPoint) -> bool {
        match self.instances[instance.ix()].crash_at {
            Some((p, _)) if p == point => {
                self.crash(instance);
                true
            }
            _ => false,
        }
    }

    pub(super) fn crash(&mut self, instance: InstanceId) {
        let inst = &mut self.instances[instance.ix()];
        if !inst.alive {
            return;
        }
        let restart_after = inst.crash_at.take().map(|c| c.1).or_else(|| {
            self.scenario.faults.iter().find_map(|f| match f {
                Fault::Crash {
                    instance: i,
                    at_ms: Some(_),
                    restart_after_ms,
                    ..
                } if *i == instance.0 => Some(*restart_after_ms),
                _ => None,
            })
        });
        self.crash_then(instance, restart_after);
    }

    /// The crash itself, then a restart after `restart_after` ms if any.
    pub(super) fn crash_then(&mut self, instance: InstanceId, restart_after: Option<u64>) {
        let inst = &mut self.instances[instance.ix()];
        inst.alive = false;
        let lost: Vec<u32> = inst.jobs.drain(..).map(|j| j.attempt).collect();
        inst.connection_queue.clear();
        let sessions: Vec<SessionId> = inst.connections.iter().map(|c| c.session).collect();
        for c in &mut inst.connections {
            c.job = None;
        }
        self.agenda
            .items
            .retain(|e| !matches!(e.due, Due::Step { instance: i, .. } if i == instance));
        self.emit(
            Actor::Instance(instance.0),
            EventKind::Crashed {
                instance: instance.0,
                lost_attempts: lost,
            },
        );
        // A dead process's connections close, so its open transactions roll back.
        for s in sessions {
            // Logged only where it changes the store (a transaction or a
            // waiting statement), so that the log replays alone.
            let busy = self.store.in_transaction(s) || self.store.waiting_on(s).is_some();
            if self.log_store && busy {
                self.store_log.push(StoreStatement {
                    session: s.0,
                    instance: Some(instance.0),
                    time_ms: self.now_ms,
                    stmt: Stmt::Rollback,
                    waited: false,
                    closed: true,
                });
            }
            self.store.terminate(s);
        }
        self.drain_completions();
        if let Some(after) = restart_after {
            self.agenda
                .push(self.now_ms + after, Due::Restart { instance });
        }
    }

    pub(super) fn restart(&mut self, instance: InstanceId) {
        let sessions: Vec<SessionId> = (0..self.scenario.pool_size)
            .map(|_| self.store.open_session())
            .collect();
        let inst = &mut self.instances[instance.ix()];
        inst.alive = true;
        inst.connections = sessions
            .into_iter()
            .map(|session| Connection { session, job: None })
            .collect();
        self.emit(
            Actor::Instance(instance.0),
            EventKind::Restarted {
                instance: instance.0,
            },
        );
    }
}

fn crash_tag(c: &Option<(CrashPoint, u64)>) -> u64 {
    match c {
        None => 0,
        Some((CrashPoint::AfterCommit, _)) => 1,
        Some((CrashPoint::AfterCaptureSent, _)) => 2,
    }
}

/// A word of flags and lengths, the crash's time if one is armed, a word
/// per connection, the queue three to a word, then each job.
impl Words for Instance {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Instance {
            alive,
            connections,
            jobs,
            connection_queue,
            crash_at,
        } = self;
        h.word(
            Pack::new()
                .flag(*alive)
                .len(connections.len(), 16)
                .len(jobs.len(), 16)
                .len(connection_queue.len(), 16)
                .put(crash_tag(crash_at), 2)
                .word(),
        );
        if let Some((_, at)) = crash_at {
            h.word(*at);
        }
        for Connection { session, job } in connections {
            h.word(
                Pack::new()
                    .put(u64::from(session.0), 32)
                    .opt(*job, 24)
                    .word(),
            );
        }
        for three in connection_queue.chunks(3) {
            let mut p = Pack::new();
            for &q in three {
                p = p.put(u64::from(q), 21);
            }
            h.word(p.word());
        }
        for job in jobs {
            job.words(h);
        }
    }
}
