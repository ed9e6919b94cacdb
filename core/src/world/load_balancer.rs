//! The load balancer: which instance an attempt reaches.

use super::*;

impl World {
    pub(super) fn route(&mut self, attempt: AttemptId, chooser: &mut dyn Chooser) {
        let alive: Vec<u32> = (0..self.instances.len() as u32)
            .filter(|&i| self.instances[i as usize].alive)
            .collect();
        if alive.is_empty() {
            self.emit(
                Actor::LoadBalancer,
                EventKind::NoInstanceAlive { attempt: attempt.0 },
            );
            self.send_response(
                attempt,
                None,
                503,
                None,
                r#"{"erro": "sem instancias"}"#.into(),
                chooser,
            );
            return;
        }
        let n = alive.len() as u32;
        let pick = match self.scenario.load_balancer {
            LoadBalancerPolicy::RoundRobin => {
                let p = alive[(self.lb_next % n) as usize];
                self.lb_next = self.lb_next.wrapping_add(1);
                p
            }
            LoadBalancerPolicy::Random => alive[chooser.choose(ChoiceKind::Route, n) as usize],
            LoadBalancerPolicy::LeastBusy => {
                let least = alive
                    .iter()
                    .map(|&i| self.instances[i as usize].jobs.len())
                    .min()
                    .expect("some instance is alive");
                let tied: Vec<u32> = alive
                    .iter()
                    .copied()
                    .filter(|&i| self.instances[i as usize].jobs.len() == least)
                    .collect();
                if tied.len() > 1 {
                    tied[chooser.choose(ChoiceKind::Route, tied.len() as u32) as usize]
                } else {
                    tied[0]
                }
            }
            LoadBalancerPolicy::StickyByKey => {
                let h = fnv1a(self.attempts[attempt.ix()].key.as_bytes());
                alive[(h % u64::from(n)) as usize]
            }
        };
        self.attempts[attempt.ix()].instance = Some(pick);
        // A queue hands its message to a consumer itself.
        let delivery = self.is_delivery(attempt);
        let actor = if delivery {
            Actor::Queue(self.attempts[attempt.ix()].client)
        } else {
            Actor::LoadBalancer
        };
        self.emit(
            actor,
            EventKind::Routed {
                attempt: attempt.0,
                instance: pick,
            },
        );
        self.instances[pick as usize]
            .jobs
            .push(Job::new(attempt.0, delivery));
        self.schedule_step(InstanceId(pick), attempt);
    }
}
