package io.floe.testing;

import javax.security.sasl.AuthenticationException;
import org.apache.hive.service.auth.PasswdAuthenticationProvider;

/**
 * Hive CUSTOM authentication for the R6 server test: user {@code r6user} with the password in
 * system property {@code floe.test.thrift-password}; every other pair is refused.
 */
public final class ThriftFixedPasswordAuthenticator implements PasswdAuthenticationProvider {
  @Override
  public void Authenticate(String user, String password) throws AuthenticationException {
    String expected = System.getProperty("floe.test.thrift-password");
    if (expected == null || !"r6user".equals(user) || !expected.equals(password)) {
      throw new AuthenticationException("Wrong user name or password for " + user);
    }
  }
}
