//! The lesson's challenges, in the order the workshop plays them: the
//! first post's race, then the second post's state machine.

use super::{Challenge, Edits, Goal, How};
use crate::predict::Said;
use crate::property::{AT_MOST_ONE_CAPTURE, NO_KEY_STUCK};
use crate::scenario::Strategy;

const fn said(pt: &'static str, en: &'static str) -> Said {
    Said { pt, en }
}

/// The lesson: ten challenges for a 90-minute workshop.
pub const LESSON: &[Challenge] = &[
    Challenge {
        id: "reenvio-na-outra-instancia",
        title: said(
            "O reenvio que cai na outra instância",
            "The retry that lands on the other instance",
        ),
        task: said(
            "O app desiste em 2 s e reenvia. Na ordem de chegada, o reenvio espera na mesma instância e a compra é cobrada uma vez. Faça as escolhas que cobram a mesma compra duas vezes.",
            "The app gives up after 2 s and sends again. In arrival order the retry waits on the same instance and the purchase is charged once. Make the choices that charge the same purchase twice.",
        ),
        scenario: "timeout-retry;load_balancer=\"random\";pool_size=1",
        strategy: Strategy::CheckThenAct,
        how: How::Picks,
        goal: Goal::DoubleCharge { picks_max: None },
        hints: &[
            said(
                "O balanceador pode mandar cada tentativa para qualquer instância, e essa escolha é sua.",
                "The load balancer may send each attempt to any instance, and that choice is yours.",
            ),
            said(
                "Cada instância tem uma só conexão: na mesma instância, o reenvio espera a primeira tentativa terminar.",
                "Each instance has a single connection: on the same instance, the retry waits for the first attempt to finish.",
            ),
            said(
                "Mande o reenvio para a instância livre e veja o que o SELECT dele encontra.",
                "Send the retry to the idle instance and watch what its SELECT finds.",
            ),
        ],
        success: said(
            "A primeira tentativa ainda esperava o adquirente, com a linha inserida mas sem commit. O SELECT do reenvio, na outra instância, não viu nada e seguiu para o INSERT e a captura: duas cobranças. Verificar e depois agir são dois passos, e entre eles cabe outra requisição.",
            "The first attempt was still waiting on the acquirer, its row inserted but not committed. The retry's SELECT, on the other instance, saw nothing and went on to INSERT and capture: two charges. Checking and then acting are two steps, and another request fits between them.",
        ),
    },
    Challenge {
        id: "corrida-no-minimo",
        title: said(
            "A corrida com o mínimo de escolhas",
            "The race in the fewest choices",
        ),
        task: said(
            "Duas tentativas da mesma cobrança chegam juntas. Cobre a compra duas vezes com no máximo 2 escolhas; depois delas, o resto segue a ordem de chegada.",
            "Two attempts of one charge arrive together. Charge the purchase twice in at most 2 choices; past them, the rest follows arrival order.",
        ),
        scenario: "race-2;load_balancer=\"random\"",
        strategy: Strategy::CheckThenAct,
        how: How::Picks,
        goal: Goal::DoubleCharge { picks_max: Some(2) },
        hints: &[
            said(
                "Sem nenhuma escolha, as duas vão para a mesma instância e uma espera a outra.",
                "With no choice at all, both go to the same instance and one waits for the other.",
            ),
            said(
                "Basta separar as duas tentativas: a ordem de chegada faz o resto.",
                "Separating the two attempts is enough: arrival order does the rest.",
            ),
        ],
        success: said(
            "Bastou mandar as duas tentativas para instâncias diferentes. Lá, a ordem de chegada intercala os passos, e os dois SELECTs leem a tabela vazia antes de qualquer commit. Em testes locais as requisições chegam uma de cada vez e isso quase nunca aparece; sob carga, aparece.",
            "Sending the two attempts to different instances was enough. There, arrival order interleaves the steps, and both SELECTs read the empty table before either commits. In local tests requests arrive one at a time and this hardly ever shows; under load, it does.",
        ),
    },
    Challenge {
        id: "o-timeout-que-dispara",
        title: said(
            "O timeout que dispara o reenvio",
            "The timeout that sets off the retry",
        ),
        task: said(
            "Aqui o app espera 5 s pela resposta e a compra é cobrada uma vez. Mude um único valor do cenário para que o reenvio do app cobre de novo.",
            "Here the app waits 5 s for the answer and the purchase is charged once. Change a single value of the scenario so that the app's retry charges again.",
        ),
        scenario: "timeout-retry;clients.0.timeout_ms=5000",
        strategy: Strategy::CheckThenAct,
        how: How::Edit(Edits::OneValue),
        goal: Goal::DoubleCharge { picks_max: None },
        hints: &[
            said(
                "Compare quanto o adquirente leva para responder com quanto o app aceita esperar.",
                "Compare how long the acquirer takes to answer with how long the app is willing to wait.",
            ),
            said(
                "O campo é clients.0.timeout_ms.",
                "The field is clients.0.timeout_ms.",
            ),
        ],
        success: said(
            "Com o timeout abaixo do tempo que o adquirente leva, o app desiste sem saber se a cobrança aconteceu e reenvia. O reenvio encontra a primeira tentativa ainda sem commit e cobra outra vez. Um timeout maior só esconde o problema: um adquirente mais lento, ou um clique duplo, o traz de volta.",
            "With the timeout below the time the acquirer takes, the app gives up without knowing whether the charge happened, and sends again. The retry finds the first attempt still uncommitted and charges again. A longer timeout only hides the problem: a slower acquirer, or a double click, brings it back.",
        ),
    },
    Challenge {
        id: "resposta-guardada",
        title: said("A resposta guardada", "The stored response"),
        task: said(
            "Com a chave de idempotência, na ordem de chegada, a segunda tentativa recebe 409. Faça as escolhas que dão a ela exatamente a resposta que a primeira recebeu.",
            "With the idempotency key, in arrival order, the second attempt gets a 409. Make the choices that give it exactly the answer the first one got.",
        ),
        scenario: "race-2",
        strategy: Strategy::IdempotencyKey,
        how: How::Picks,
        goal: Goal::Replayed,
        hints: &[
            said(
                "O INSERT ... ON CONFLICT DO NOTHING da segunda tentativa não devolve linha: ela passa a ler a linha da primeira.",
                "The second attempt's INSERT ... ON CONFLICT DO NOTHING returns no row: it goes on to read the first attempt's row.",
            ),
            said(
                "O que ela responde depende do status dessa linha no momento da leitura.",
                "What it answers depends on that row's status at the moment it reads it.",
            ),
            said(
                "Deixe a primeira terminar e gravar a resposta antes que a segunda leia.",
                "Let the first one finish and store its answer before the second one reads.",
            ),
        ],
        success: said(
            "A segunda tentativa leu a linha da chave depois que a primeira gravou nela o status, o código e o corpo da resposta. Não cobrou: devolveu a resposta guardada, idêntica. O cliente não precisa saber qual das duas fez o trabalho.",
            "The second attempt read the key's row after the first had stored the answer's status, code and body in it. It did not charge: it returned the stored answer, identical. The client need not know which of the two did the work.",
        ),
    },
    Challenge {
        id: "processando-responde-409",
        title: said("Ainda processando: 409", "Still processing: 409"),
        task: said(
            "Aqui a primeira resposta se perde e o reenvio recebe a resposta guardada. Mude um valor para que o reenvio chegue enquanto a primeira tentativa ainda espera o adquirente.",
            "Here the first answer is lost and the retry gets the stored one. Change one value so that the retry arrives while the first attempt is still waiting on the acquirer.",
        ),
        scenario: "lost-response",
        strategy: Strategy::IdempotencyKey,
        how: How::Edit(Edits::OneValue),
        goal: Goal::ClientHears { status: 409 },
        hints: &[
            said(
                "O reenvio sai 2,5 s depois do primeiro envio. Quanto tempo a primeira tentativa leva do começo ao fim?",
                "The retry leaves 2.5 s after the first send. How long does the first attempt take from start to finish?",
            ),
            said(
                "Deixe o adquirente mais lento: acquirer.latency_ms.",
                "Make the acquirer slower: acquirer.latency_ms.",
            ),
        ],
        success: said(
            "A chave já estava gravada, com commit, como PROCESSANDO antes da chamada ao adquirente. O reenvio esbarrou no UNIQUE, leu a linha e respondeu 409: ainda em andamento, tente mais tarde. Nenhuma segunda captura, e o reenvio seguinte recebe a resposta guardada.",
            "The key was already written, and committed, as PROCESSANDO before the acquirer was called. The retry ran into the UNIQUE constraint, read the row and answered 409: still in progress, try later. No second capture, and the retry after it gets the stored answer.",
        ),
    },
    Challenge {
        id: "prova-do-unique",
        title: said(
            "Procure a cobrança dupla, depois prove que ela não existe",
            "Hunt for the double charge, then prove there is none",
        ),
        task: said(
            "Três tentativas da mesma cobrança, com a chave de idempotência. Tente cobrar duas vezes fazendo escolhas; quando desistir, rode o explorador, que percorre todas as intercalações.",
            "Three attempts of one charge, under the idempotency key. Try to charge twice by making choices; when you give up, run the explorer, which goes through every interleaving.",
        ),
        scenario: "race-3",
        strategy: Strategy::IdempotencyKey,
        how: How::Explore,
        goal: Goal::Proven {
            property: AT_MOST_ONE_CAPTURE.name,
        },
        hints: &[
            said(
                "Veja onde se decide quem cobra: num SELECT ou dentro do próprio INSERT?",
                "See where it is decided who charges: in a SELECT, or inside the INSERT itself?",
            ),
            said(
                "O explorador só prova algo quando completa a busca; um corte pelo limite de estados não prova nada.",
                "The explorer proves something only when its search completes; a cut at the state limit proves nothing.",
            ),
        ],
        success: said(
            "Em todas as intercalações, no máximo uma captura. O UNIQUE na chave transforma duas escritas em uma escrita e uma recusa, decididas atomicamente dentro do INSERT, sem janela entre ler e escrever. E a reivindicação tem commit antes da chamada ao adquirente, então quem chega depois vê a chave e não cobra.",
            "In every interleaving, at most one capture. The UNIQUE constraint on the key turns two writes into one write and one refusal, decided atomically inside the INSERT, with no window between reading and writing. And the claim is committed before the acquirer is called, so whoever comes later sees the key and does not charge.",
        ),
    },
    Challenge {
        id: "transacao-aberta",
        title: said(
            "A transação que segura o reenvio",
            "The transaction that holds the retry",
        ),
        task: said(
            "Neste projeto a chave é gravada numa transação que só fecha depois do adquirente. Hoje o adquirente é rápido e nada espera. Mude um valor para que um reenvio fique pelo menos 1 s parado, esperando a linha.",
            "In this design the key is written in a transaction that only closes after the acquirer. Today the acquirer is quick and nothing waits. Change one value so that a retry stands at least 1 s, waiting on the row.",
        ),
        scenario: "held-transaction;acquirer.latency_ms=500",
        strategy: Strategy::IdempotencyKeyHeldTx,
        how: How::Edit(Edits::OneValue),
        goal: Goal::Waits { ms: 1_000 },
        hints: &[
            said(
                "Para haver reenvio, o app precisa desistir antes da resposta, e ele espera 1,5 s.",
                "For a retry to happen the app must give up before the answer, and it waits 1.5 s.",
            ),
            said(
                "Um adquirente mais lento mantém a transação aberta por mais tempo.",
                "A slower acquirer keeps the transaction open for longer.",
            ),
        ],
        success: said(
            "O INSERT do reenvio não foi recusado nem recebeu 409: ficou esperando a transação da primeira tentativa terminar, segurando uma conexão o tempo todo. Sob carga, isso vira fila e pool esgotado. Por isso a reivindicação da chave tem commit antes da chamada externa.",
            "The retry's INSERT was neither refused nor answered 409: it waited for the first attempt's transaction to end, holding a connection the whole time. Under load that becomes a queue and an exhausted pool. That is why the key's claim is committed before the external call.",
        ),
    },
    Challenge {
        id: "chave-por-tentativa",
        title: said(
            "Uma chave nova a cada reenvio",
            "A fresh key on every retry",
        ),
        task: said(
            "O servidor tem chave e UNIQUE, e mesmo assim a compra é cobrada várias vezes. Corrija o cliente, sem mexer nos tempos, para que os reenvios deem numa cobrança só.",
            "The server has a key and UNIQUE, and the purchase is still charged several times. Fix the client, without touching the timings, so that its retries come to a single charge.",
        ),
        scenario: "new-key-per-retry",
        strategy: Strategy::IdempotencyKey,
        how: How::Edit(Edits::ClientsNotTimes),
        goal: Goal::OneCharge,
        hints: &[
            said(
                "Compare as chaves que cada tentativa envia.",
                "Compare the keys each attempt sends.",
            ),
            said(
                "A chave pertence à intenção de cobrar, não à tentativa: clients.0.new_key_per_retry.",
                "The key belongs to the intent to charge, not to the attempt: clients.0.new_key_per_retry.",
            ),
        ],
        success: said(
            "Com a mesma chave em todas as tentativas, o UNIQUE reconhece a repetição: a primeira cobra, as outras recebem 409 ou a resposta guardada. Uma chave gerada a cada envio faz de cada reenvio uma intenção nova, e nenhuma restrição do banco junta o que o cliente separou.",
            "With the same key on every attempt, the UNIQUE constraint recognises the repeat: the first charges, the rest get a 409 or the stored answer. A key minted on every send makes each retry a new intent, and no database constraint can join what the client split apart.",
        ),
    },
    Challenge {
        id: "conciliacao",
        title: said(
            "O efeito incerto e a recuperação",
            "The uncertain effect and recovery",
        ),
        task: said(
            "O adquirente capturou, mas a resposta dele se perdeu; a chave fica em unknown e todo reenvio recebe 409 até o app desistir. Mude um valor para que a recuperação resolva a chave a tempo de um reenvio receber a resposta.",
            "The acquirer captured but its answer was lost; the key stays unknown and every retry gets a 409 until the app gives up. Change one value so that recovery settles the key in time for a retry to get the answer.",
        ),
        scenario: "unknown-reconciled;recovery_every_ms=60000",
        strategy: Strategy::IdempotencyKeyLease,
        how: How::Edit(Edits::OneValue),
        goal: Goal::HearsReconciled,
        hints: &[
            said(
                "A recuperação passa a cada recovery_every_ms; aqui, uma vez por minuto.",
                "Recovery comes round every recovery_every_ms; here, once a minute.",
            ),
            said(
                "Os reenvios do app terminam em poucos segundos.",
                "The app's retries are over within a few seconds.",
            ),
        ],
        success: said(
            "A recuperação não liberou a chave às cegas: perguntou ao adquirente pelo pedido, soube da captura, completou o registro com 201, e o reenvio seguinte recebeu essa resposta sem cobrar de novo. Uma chave em unknown só se resolve com evidência; liberá-la por tempo seria cobrar duas vezes.",
            "Recovery did not free the key blindly: it asked the acquirer about the order, learned of the capture, completed the record with a 201, and the next retry got that answer without charging again. A key in unknown is settled only on evidence; freeing it on a timer would charge twice.",
        ),
    },
    Challenge {
        id: "orfao-com-lease",
        title: said("O PROCESSANDO órfão", "The orphan PROCESSANDO"),
        task: said(
            "A instância grava a chave, pede a captura e morre antes da resposta. No projeto com lease e recuperação, procure uma ordem em que a chave fique presa; depois peça ao explorador que verifique todas.",
            "The instance records the key, asks for the capture and dies before the answer. Under the design with a lease and recovery, look for an order in which the key stays stuck; then ask the explorer to check them all.",
        ),
        scenario: "crash-after-commit;load_balancer=\"random\"",
        strategy: Strategy::IdempotencyKeyLease,
        how: How::Explore,
        goal: Goal::Proven {
            property: NO_KEY_STUCK.name,
        },
        hints: &[
            said(
                "Sem lease, a linha PROCESSANDO de uma instância morta responderia 409 para sempre.",
                "Without a lease, a dead instance's PROCESSANDO row would answer 409 forever.",
            ),
            said(
                "Quando o lease vence, quem decide o destino da chave é a recuperação, com a resposta do adquirente.",
                "When the lease runs out, recovery decides the key's fate, from the acquirer's answer.",
            ),
        ],
        success: said(
            "Em toda intercalação, nenhuma chave fica presa em processamento além do lease e da recuperação. A chave leva um lease; quando ele vence, a recuperação consulta o adquirente, completa o registro se houve captura e só libera a chave quando consegue provar que nada aconteceu.",
            "In every interleaving, no key stays stuck processing past its lease and recovery. The key carries a lease; when it runs out, recovery asks the acquirer, completes the record if there was a capture, and frees the key only when it can prove nothing happened.",
        ),
    },
];
