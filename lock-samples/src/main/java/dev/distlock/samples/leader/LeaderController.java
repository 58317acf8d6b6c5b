package dev.distlock.samples.leader;

import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The leader-elected task's state, and a demo that makes the leader step down.
 */
@RestController
@RequestMapping("/api")
class LeaderController {

    private final LeaderTask task;
    private final LockRegistryLeaderInitiator initiator;

    LeaderController(LeaderTask task, LockRegistryLeaderInitiator initiator) {
        this.task = task;
        this.initiator = initiator;
    }

    @GetMapping("/leader")
    LeaderTask.State state() {
        return task.state();
    }

    /**
     * The leader yields: it unlocks its role's lock, and the next leader (this instance again when
     * it is alone) is elected with a newer fencing token.
     */
    @PostMapping("/demo/leader")
    YieldDemo yieldLeadership() {
        LeaderTask.State before = task.state();
        initiator.getContext().yield();
        return new YieldDemo(before.leader(), before.fencingToken());
    }

    record YieldDemo(boolean wasLeader, long previousToken) {}
}
