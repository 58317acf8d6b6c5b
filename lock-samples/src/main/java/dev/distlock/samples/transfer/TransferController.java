package dev.distlock.samples.transfer;

import dev.distlock.samples.Concurrently;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Account endpoints and the opposite-transfers demo.
 */
@RestController
@RequestMapping("/api")
class TransferController {

    private final AccountService accounts;

    TransferController(AccountService accounts) {
        this.accounts = accounts;
    }

    @GetMapping("/accounts/{account}")
    Map<String, Object> balance(@PathVariable String account) {
        return Map.of("account", account, "balance", accounts.balance(account));
    }

    @PutMapping("/accounts/{account}")
    Map<String, Object> open(@PathVariable String account, @RequestParam long balance) {
        accounts.open(account, balance);
        return balance(account);
    }

    @PostMapping("/transfers")
    Map<String, Object> transfer(@RequestParam String from, @RequestParam String to, @RequestParam long amount) {
        boolean moved = accounts.transfer(from, to, amount);
        return Map.of(
                "from",
                from,
                "to",
                to,
                "amount",
                amount,
                "moved",
                moved,
                "balances",
                Map.of(from, accounts.balance(from), to, accounts.balance(to)));
    }

    /** Transfers run at once in both directions between two accounts; money is neither lost nor made. */
    @PostMapping("/demo/transfers")
    TransferDemo demo(@RequestParam(defaultValue = "12") int transfers) {
        accounts.open("alice", 1000);
        accounts.open("bob", 1000);
        List<Boolean> moved = Concurrently.run(
                transfers,
                i -> i % 2 == 0 ? accounts.transfer("alice", "bob", 100) : accounts.transfer("bob", "alice", 50));
        long alice = accounts.balance("alice");
        long bob = accounts.balance("bob");
        long expectedAlice = 1000;
        for (int i = 0; i < transfers; i++) {
            if (moved.get(i)) {
                expectedAlice += i % 2 == 0 ? -100 : 50;
            }
        }
        return new TransferDemo(
                transfers, moved.stream().filter(m -> m).count(), alice, bob, alice + bob, alice == expectedAlice);
    }

    record TransferDemo(int transfers, long completed, long alice, long bob, long total, boolean balancesConsistent) {}
}
