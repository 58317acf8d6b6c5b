package dev.distlock.samples.transfer;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Moves money between two accounts while holding the locks of both ({@code account:<id>}, one multi
 * lock, all or nothing), so that no other transfer touching either account runs meanwhile. The
 * multi lock takes its members in a canonical order: a transfer A to B and one B to A never each
 * hold one lock and wait for the other.
 */
@Service
public class AccountService {

    private final Map<String, Long> balances = new ConcurrentHashMap<>();

    private final Duration work;

    /**
     * Creates the service.
     * @param work simulated time of one transfer
     */
    public AccountService(@Value("${samples.transfer-time:60ms}") Duration work) {
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
    @DistributedLock(name = "account", key = "{#from, #to}", waitTime = "10s")
    public boolean transfer(String from, String to, long amount) {
        if (from.equals(to)) {
            throw new IllegalArgumentException("'from' and 'to' must differ, both were '" + from + "'");
        }
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
