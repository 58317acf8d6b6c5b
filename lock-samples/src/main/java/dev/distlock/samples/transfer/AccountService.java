package dev.distlock.samples.transfer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import dev.distlock.samples.Pause;
import dev.distlock.spring.LockTemplate;

/**
 * Moves money between two accounts while holding the locks of both, so that no other transfer
 * touching either account runs meanwhile. The locks are taken in name order: a transfer A to B and
 * one B to A then never each hold one lock and wait for the other.
 */
@Service
public class AccountService {

    private final Map<String, Long> balances = new ConcurrentHashMap<>();

    private final LockTemplate locks;

    private final Duration work;

    /**
     * Creates the service.
     * @param locks the lock template
     * @param work simulated time of one transfer
     */
    public AccountService(LockTemplate locks, @Value("${samples.transfer-time:60ms}") Duration work) {
        this.locks = locks;
        this.work = work;
    }

    /**
     * Sets an account's balance.
     * @param account the account
     * @param balance its balance
     */
    public void open(String account, long balance) {
        balances.put(account, balance);
    }

    /**
     * Returns an account's balance.
     * @param account the account
     * @return its balance
     */
    public long balance(String account) {
        return balances.getOrDefault(account, 0L);
    }

    /**
     * Moves {@code amount} from one account to another if the first has enough.
     * @param from debited account
     * @param to credited account
     * @param amount how much
     * @return whether the money moved
     */
    // Once the starter supports multi-key locks this is
    // @DistributedLock(name = "account", key = "{#from, #to}") on a method doing the body of move().
    public boolean transfer(String from, String to, long amount) {
        if (from.equals(to)) {
            throw new IllegalArgumentException("'from' and 'to' must differ, both were '" + from + "'");
        }
        List<String> ordered = Stream.of(from, to).sorted().toList();
        return locks.execute("account:" + ordered.get(0),
                () -> locks.execute("account:" + ordered.get(1), () -> move(from, to, amount)));
    }

    private boolean move(String from, String to, long amount) {
        long fromBalance = balance(from);
        long toBalance = balance(to);
        Pause.of(work);
        if (fromBalance < amount) {
            return false;
        }
        balances.put(from, fromBalance - amount);
        balances.put(to, toBalance + amount);
        return true;
    }
}
