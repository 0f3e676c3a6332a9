import ddbst from './index.cjs';
export const { Ddbst, DdbstError, DynamoDBError, NumberText } = ddbst;
